/**
 * The `exec` code blocks of `xmd run`: `sh` and `bash` blocks run natively as
 * `bash -c <script>` in a directory under the caller's working directory.
 *
 * Invariant: `run` settles only once the block's process has exited and its
 * output pipes have closed, and a block stopped by its timeout or by the abort
 * signal is stopped together with everything it started in its process group.
 * A stopped block settles as soon as its `bash` has exited: a process that
 * left the group (`setsid cmd &`) may still hold the pipes open, so once the
 * group is stopped and `bash` is gone the pipes are no longer read (whatever
 * such a process writes later is dropped).
 *
 * Process-group choice: the block is spawned with Deno's `detached` option,
 * which puts `bash` in a new session and process group (`setsid`) without
 * needing a `setsid` executable. Stopping sends SIGTERM to the whole group,
 * then SIGKILL 2 s later if the output is still open; if the group cannot be
 * signalled, the `bash` process alone is. The cost of a separate group is that
 * a terminal's Ctrl-C no longer reaches the block directly: the caller must
 * turn SIGINT into aborting `ShellRequest.signal`, which stops the group.
 *
 * @module
 */
import { EffectRefusal } from "../engine/effect-refusal.ts";
import type { ShellProvider, ShellRequest, ShellResult } from "../engine/providers.ts";
import { FileSystemError } from "../engine/file-system-error.ts";
import { fromDenoError } from "./_deno-file-system-error.ts";
import { resolveHostPath } from "./_host-path.ts";

/** How long a stopped block gets between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 2_000;
/** The exit code reported for a block stopped by its timeout (as `timeout(1)` does). */
const TIMEOUT_EXIT_CODE = 124;
/** The exit code reported for a block stopped by the abort signal (128 + SIGINT). */
const ABORT_EXIT_CODE = 130;
/** The longest delay `setTimeout` honors; longer timeouts are clamped to it. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A code block in a language the host shell does not run. No fallback exists:
 * the block is refused before anything runs.
 */
export class UnsupportedLanguageError extends EffectRefusal {
  /** The class name, which journals record. */
  override name = "UnsupportedLanguageError";
  /** Its stable code. */
  override readonly code = "shell.language";
  /** The refused language, as written in the info string. */
  readonly lang: string;

  /** A refusal of a block in `lang`. */
  constructor(lang: string, options?: ErrorOptions) {
    super(`Cannot run a "${lang}" block: only sh and bash blocks run`, options);
    this.lang = lang;
  }
}

/**
 * A {@linkcode ShellProvider} that runs blocks with the host's `bash`.
 *
 * `onStdout` and `onStderr` receive UTF-8 text as it arrives (a multi-byte
 * character split across reads is delivered whole) and must not throw.
 *
 * @example Capturing a block's output
 * ```ts
 * import assert from "node:assert/strict";
 * import { HostShell } from "./host-shell.ts";
 * const shell = new HostShell(Deno.cwd());
 * const result = await shell.run({
 *   lang: "sh",
 *   script: "echo hello",
 *   cwd: ".",
 *   timeoutMs: 5_000,
 *   onStdout: () => {},
 *   onStderr: () => {},
 *   signal: new AbortController().signal,
 * });
 * assert.equal(result.exitCode, 0);
 * assert.equal(result.stdout, "hello\n");
 * ```
 */
export class HostShell implements ShellProvider {
  readonly #root: string;
  readonly #env: Record<string, string> | undefined;

  /**
   * Runs blocks in directories under `root`, with `env` added to the
   * inherited environment.
   */
  constructor(root: string, env?: Record<string, string>) {
    this.#root = root;
    this.#env = env;
  }

  /**
   * Runs one block to completion, timeout (exit code 124, `timedOut: true`) or
   * abort (exit code 130, `timedOut: false`). Rejects with an
   * {@linkcode UnsupportedLanguageError} for a language other than `sh` or
   * `bash`, and with a `FileSystemError` when `cwd` is missing or not a
   * directory.
   */
  async run(request: ShellRequest): Promise<ShellResult> {
    if (request.lang !== "sh" && request.lang !== "bash") {
      throw new UnsupportedLanguageError(request.lang);
    }
    const cwd = resolveHostPath(this.#root, request.cwd, "run a block in");
    await assertDirectory(cwd, request.cwd);
    if (request.signal.aborted) {
      return { exitCode: ABORT_EXIT_CODE, stdout: "", stderr: "", timedOut: false };
    }
    const child = new Deno.Command("bash", {
      args: ["-c", request.script],
      cwd,
      env: this.#env,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      detached: true,
    }).spawn();

    let stoppedBy: "timeout" | "abort" | undefined;
    let exited = false;
    let killTimer: ReturnType<typeof setTimeout> | undefined;
    // Resolved once the block is both stopped and exited: reading its pipes ends there.
    const { promise: abandoned, resolve: abandon } = Promise.withResolvers<void>();
    const stop = (reason: "timeout" | "abort") => {
      if (stoppedBy !== undefined) return;
      stoppedBy = reason;
      signalGroup(child, "SIGTERM");
      killTimer = setTimeout(() => signalGroup(child, "SIGKILL"), KILL_GRACE_MS);
      if (exited) abandon();
    };
    const status = child.status.then((status) => {
      exited = true;
      if (stoppedBy !== undefined) abandon();
      return status;
    });
    const timeoutTimer = Number.isFinite(request.timeoutMs)
      ? setTimeout(() => stop("timeout"), Math.min(Math.max(request.timeoutMs, 0), MAX_TIMER_MS))
      : undefined;
    const onAbort = () => stop("abort");
    request.signal.addEventListener("abort", onAbort, { once: true });
    try {
      const [{ code }, stdout, stderr] = await Promise.all([
        status,
        collect(child.stdout, request.onStdout, abandoned),
        collect(child.stderr, request.onStderr, abandoned),
      ]);
      if (stoppedBy === "timeout") {
        return { exitCode: TIMEOUT_EXIT_CODE, stdout, stderr, timedOut: true };
      }
      if (stoppedBy === "abort") {
        return { exitCode: ABORT_EXIT_CODE, stdout, stderr, timedOut: false };
      }
      return { exitCode: code, stdout, stderr, timedOut: false };
    } finally {
      clearTimeout(timeoutTimer);
      clearTimeout(killTimer);
      request.signal.removeEventListener("abort", onAbort);
    }
  }
}

/** Refuses a working directory that does not exist or is not a directory, before spawning. */
async function assertDirectory(hostPath: string, path: string): Promise<void> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(hostPath);
  } catch (error) {
    throw fromDenoError(error, "run a block in", path, "directory");
  }
  if (!info.isDirectory) {
    throw new FileSystemError(
      "ENOTDIR",
      path,
      `Cannot run a block in "${path}": not a directory (ENOTDIR)`,
    );
  }
}

/** Signals the block's process group, or `bash` alone when the group cannot be signalled. */
function signalGroup(child: Deno.ChildProcess, signal: Deno.Signal): void {
  try {
    // A negative pid addresses the process group that `detached` created.
    Deno.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // The process has already exited: nothing is left to stop.
    }
  }
}

/**
 * Delivers a pipe's text as it arrives and returns all of it once the pipe
 * closes or `abandoned` resolves, whichever comes first (the pipe is then
 * cancelled: nothing keeps reading it).
 */
async function collect(
  stream: ReadableStream<Uint8Array>,
  deliver: (chunk: string) => void,
  abandoned: Promise<void>,
): Promise<string> {
  const decoder = new TextDecoder();
  let all = "";
  const emit = (text: string) => {
    if (text === "") return;
    all += text;
    deliver(text);
  };
  const reader = stream.getReader();
  // Cancelling ends a pending read as done and closes our end of the pipe.
  abandoned.then(() => reader.cancel()).catch(() => {});
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    emit(decoder.decode(value, { stream: true }));
  }
  emit(decoder.decode());
  return all;
}
