/**
 * What a command may touch of its process: output streams, the user's
 * directory, the environment, the terminal and Ctrl-C. Commands take it as a
 * parameter so tests can run them in-process as well as as a subprocess.
 *
 * @module
 */
import { isAbsolute, resolve } from "node:path";

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
  /** Aborted on Ctrl-C. */
  signal: AbortSignal;
  /** Resolves a user path against `cwd`. */
  resolve(path: string): string;
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
 * The real process. The user's directory is `INIT_CWD` when set (under
 * `deno task` and npm the process runs in the project root), else the cwd.
 */
export function processIo(signal: AbortSignal): CommandIo {
  const cwd = Deno.env.get("INIT_CWD") || Deno.cwd();
  return {
    stdout: streamWriter(Deno.stdout),
    stderr: streamWriter(Deno.stderr),
    cwd,
    env: Deno.env.toObject(),
    interactive: Deno.stdin.isTerminal(),
    signal,
    resolve: (path) => isAbsolute(path) ? path : resolve(cwd, path),
  };
}
