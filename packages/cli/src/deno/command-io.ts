/**
 * What a command may touch of its process: output streams, the user's
 * directory, the environment, the terminal and Ctrl-C. Commands take it as a
 * parameter so tests can run them in-process as well as as a subprocess.
 *
 * @module
 */
import { isAbsolutePath, resolvePath } from "@xmd/core/deno/internal";

/** The process as a command sees it. */
export interface CommandIo {
  /** Writes to stdout (the rendered document or the command's answer). */
  stdout(text: string): void;
  /** Writes to stderr (diagnostics, prompts, status lines). */
  stderr(text: string): void;
  /** The directory the user ran the command in. */
  cwd: string;
  /** The environment. */
  env: Record<string, string | undefined>;
  /** Whether stdin is a terminal (prompts are possible). */
  interactive: boolean;
  /** Whether stderr is a terminal (diagnostics may be coloured); false when absent. */
  stderrIsTerminal?: boolean;
  /** Aborted on Ctrl-C. */
  signal: AbortSignal;
  /**
   * Tells that the exec block at `label` (`release.md:17:1`) starts to run;
   * returns its end. Absent when nothing shows it (stderr not a terminal).
   */
  onExec?(label: string): () => void;
  /** Resolves a user path against `cwd`. */
  resolve(path: string): string;
  /** Reads standard input to its end (absent where there is none to read). */
  readStdin?(): Promise<Uint8Array>;
}

const encoder = new TextEncoder();

/** A writer that stops writing (without failing the run) once its reader has gone, as with `| head`. */
function streamWriter(file: { writeSync(bytes: Uint8Array): number }): (text: string) => void {
  let closed = false;
  return (text) => {
    if (closed) return;
    const bytes = encoder.encode(text);
    try {
      let written = 0;
      while (written < bytes.length) written += file.writeSync(bytes.subarray(written));
    } catch (error) {
      if (!(error instanceof Deno.errors.BrokenPipe)) throw error;
      closed = true;
    }
  };
}

/**
 * The real process. The user's directory is the process's working
 * directory: `INIT_CWD` is never read, since it outlives the task runner
 * that set it (a shell started from an npm script keeps it wherever it `cd`s).
 * A task that runs in another folder than its caller passes the caller's
 * with `xmd --cwd=<dir>` (see {@linkcode inDirectory}).
 */
export function processIo(signal: AbortSignal): CommandIo {
  const cwd = Deno.cwd();
  return {
    stdout: streamWriter(Deno.stdout),
    stderr: streamWriter(Deno.stderr),
    cwd,
    env: Deno.env.toObject(),
    interactive: Deno.stdin.isTerminal(),
    stderrIsTerminal: Deno.stderr.isTerminal(),
    signal,
    resolve: (path) => isAbsolutePath(path) ? path : resolvePath(cwd, path),
    readStdin: async () => new Uint8Array(await new Response(Deno.stdin.readable).arrayBuffer()),
  };
}

/**
 * `io` as seen from `directory` (resolved against `io.cwd`), for
 * `xmd --cwd=<dir>`; a directory that does not exist is refused.
 */
export async function inDirectory(io: CommandIo, directory: string): Promise<CommandIo> {
  // Loaded here, not at the top: every command's process starts with this module, and the
  // error classes bring the journal's schemas, which `xmd --help` does not need.
  const { UsageError } = await import("./usage-error.ts");
  if (directory === "") {
    throw new UsageError("Option --cwd needs a directory: write xmd --cwd=<dir> <command>");
  }
  const cwd = io.resolve(directory);
  let isDirectory: boolean;
  try {
    isDirectory = (await Deno.stat(cwd)).isDirectory;
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    throw new UsageError(`Cannot use --cwd="${directory}": no such directory`);
  }
  if (!isDirectory) {
    throw new UsageError(`Cannot use --cwd="${directory}": it is not a directory`);
  }
  return { ...io, cwd, resolve: (path) => isAbsolutePath(path) ? path : resolvePath(cwd, path) };
}
