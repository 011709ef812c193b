/**
 * Worker Shell: runs `sh`/`bash` exec blocks with `just-bash` in a Deno
 * Worker started with no permissions, against the run's Workspace.
 *
 * Invariants:
 * - The Worker reaches the Workspace only through messages the host answers;
 *   each carries the current effect's token, and any other token is refused.
 * - A block that outlives its timeout, or is cancelled, is stopped with
 *   `Worker.terminate()` (a CPU-bound script cannot block the host, which
 *   runs on another thread); the next block gets a fresh Worker.
 * - The Worker is kept warm between blocks of one run.
 * - Output streams: each top-level statement's output (and each iteration's,
 *   in a top-level loop) reaches `onStdout`/`onStderr` as soon as it ends
 *   (see worker-shell-streaming.ts); a block stopped early keeps what it
 *   streamed.
 *
 * Whether a block's Workspace changes are kept is decided by the effect
 * transaction around it (see the workflow executor), not here.
 *
 * @module
 */
import {
  EffectRefusal,
  FileSystemError,
  type ShellProvider,
  type ShellRequest,
  type ShellResult,
} from "@xmd/core";
import type { Workspace } from "../workspace/workspace.ts";
import { workspacePath } from "../workspace/workspace-file-system.ts";
import {
  type FsOp,
  type ReplyMessage,
  type WorkerMessage,
  WorkerMessageSchema,
} from "./worker-shell-protocol.ts";

/** A block Worker Shell cannot run (another language, an interpreter failure). */
export class WorkerShellError extends EffectRefusal {
  override name = "WorkerShellError";
}

const WORKER_URL = new URL("./worker-shell-worker.ts", import.meta.url);
/** The longest delay `setTimeout` honors (a longer one would fire at once); longer timeouts are clamped to it. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** A `ShellProvider` running blocks in a permission-less Worker against a Workspace. */
export class WorkerShell implements ShellProvider, Disposable {
  readonly #workspace: Workspace;
  #worker: Worker | undefined;
  #token: string | undefined;

  /** A shell over `workspace`. */
  constructor(workspace: Workspace) {
    this.#workspace = workspace;
  }

  /** Starts the Worker ahead of the first block (it takes a moment to load). */
  warm(): void {
    this.#worker ??= this.#spawn();
  }

  /**
   * Runs one block to completion, timeout (exit code 124, `timedOut: true`) or
   * cancellation (exit code 130). Rejects with a `WorkerShellError` for another
   * language or an interpreter failure, with a `FileSystemError` when `cwd` is
   * not a Workspace directory, and with the Workspace's own error when the
   * Workspace fails to serve a request (storage, corruption): that error is
   * not the script's to handle, so the Worker is stopped and the run stops.
   */
  run(request: ShellRequest): Promise<ShellResult> {
    if (request.lang !== "sh" && request.lang !== "bash") {
      return Promise.reject(
        new WorkerShellError(
          `Cannot run a "${request.lang}" block in a workflow run: only sh and bash blocks run (in Worker Shell)`,
        ),
      );
    }
    const cwd = workspacePath(request.cwd);
    try {
      this.#assertDirectory(cwd, request.cwd);
    } catch (error) {
      return Promise.reject(error);
    }
    if (request.signal.aborted) {
      return Promise.resolve({ exitCode: 130, stdout: "", stderr: "", timedOut: false });
    }
    const worker = this.#worker ??= this.#spawn();
    const token = crypto.randomUUID();
    this.#token = token;
    return new Promise<ShellResult>((resolve, reject) => {
      let settled = false;
      // What has streamed so far: a block stopped by its timeout or a
      // cancellation keeps the output its reader has already seen.
      let stdout = "";
      let stderr = "";
      const finish = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        request.signal.removeEventListener("abort", onAbort);
        this.#token = undefined;
        outcome();
      };
      const stop = (exitCode: number, timedOut: boolean) =>
        finish(() => {
          this.#kill();
          resolve({ exitCode, stdout, stderr, timedOut });
        });
      const timer = setTimeout(
        () => stop(124, true),
        Math.min(Math.max(request.timeoutMs, 0), MAX_TIMER_MS),
      );
      const onAbort = () => stop(130, false);
      request.signal.addEventListener("abort", onAbort, { once: true });
      const fail = (error: Error) =>
        finish(() => {
          this.#kill();
          reject(error);
        });
      worker.onmessageerror = () =>
        fail(new WorkerShellError("Worker Shell sent an unreadable message"));
      worker.onerror = (event) => {
        event.preventDefault();
        fail(new WorkerShellError(`Worker Shell failed: ${event.message}`));
      };
      worker.onmessage = (event: MessageEvent) => {
        const parsed = WorkerMessageSchema.safeParse(event.data);
        if (!parsed.success) return;
        const message = parsed.data;
        if (message.token !== token || settled) {
          if (message.type === "fs") {
            worker.postMessage({
              type: "reply",
              id: message.id,
              error: { code: "EACCES", message: "this Worker's effect is over" },
            });
          }
          return;
        }
        switch (message.type) {
          case "fs": {
            const served = this.#serve(message);
            if (served instanceof Error) fail(served);
            else worker.postMessage(served);
            return;
          }
          case "output":
            if (message.stream === "stdout") {
              stdout += message.data;
              request.onStdout(message.data);
            } else {
              stderr += message.data;
              request.onStderr(message.data);
            }
            return;
          case "done":
            finish(() => {
              // Output no statement's wrapper caught comes with the result.
              if (message.stdout) request.onStdout(message.stdout);
              if (message.stderr) request.onStderr(message.stderr);
              resolve({
                exitCode: message.exitCode,
                stdout: stdout + message.stdout,
                stderr: stderr + message.stderr,
                timedOut: false,
              });
            });
            return;
          case "crash":
            fail(new WorkerShellError(`The shell interpreter failed: ${message.message}`));
            return;
        }
      };
      worker.postMessage({
        type: "run",
        token,
        script: request.script,
        cwd,
        timeoutMs: request.timeoutMs,
      });
    });
  }

  /** Stops the Worker. */
  [Symbol.dispose](): void {
    this.#kill();
  }

  #spawn(): Worker {
    return new Worker(WORKER_URL, {
      type: "module",
      deno: { permissions: "none" },
    } as WorkerOptions);
  }

  #kill(): void {
    this.#worker?.terminate();
    this.#worker = undefined;
    this.#token = undefined;
  }

  #assertDirectory(cwd: string, logical: string): void {
    let kind: string;
    try {
      kind = this.#workspace.stat(cwd).kind;
    } catch (error) {
      if (!(error instanceof FileSystemError)) throw error;
      throw new FileSystemError(
        error.code,
        logical,
        `Cannot run a block in "${logical}": no such Workspace directory (${error.code})`,
      );
    }
    if (kind !== "dir") {
      throw new FileSystemError(
        "ENOTDIR",
        logical,
        `Cannot run a block in "${logical}": not a directory (ENOTDIR)`,
      );
    }
  }

  /** The reply to a request: a value or a POSIX refusal; any other failure is returned to stop the block. */
  #serve(message: Extract<WorkerMessage, { type: "fs" }>): ReplyMessage | Error {
    try {
      return { type: "reply", id: message.id, value: this.#apply(message.op, message.args) };
    } catch (error) {
      if (error instanceof FileSystemError) {
        return {
          type: "reply",
          id: message.id,
          error: { code: error.code, message: error.message },
        };
      }
      // A storage or corruption failure must stop the run (it is never a
      // result the script could observe, handle with `||`, and keep).
      return error instanceof Error ? error : new Error(String(error));
    }
  }

  /** Applies one filesystem request to the Workspace, each in its own savepoint. */
  #apply(op: FsOp, args: unknown[]): unknown {
    const ws = this.#workspace;
    const path = (index: number) => {
      const value = args[index];
      if (typeof value !== "string") {
        throw new FileSystemError("EINVAL", "?", "Cannot use a path that is not a string (EINVAL)");
      }
      return value;
    };
    return ws.sql.transaction(() => {
      switch (op) {
        case "readFile":
          return ws.readFile(path(0));
        case "writeFile":
          return ws.writeFile(path(0), bytes(args[1]));
        case "appendFile": {
          const existing = ws.exists(path(0)) ? ws.readFile(path(0)) : new Uint8Array();
          const added = bytes(args[1]);
          const joined = new Uint8Array(existing.length + added.length);
          joined.set(existing);
          joined.set(added, existing.length);
          return ws.writeFile(path(0), joined);
        }
        case "exists":
          return ws.exists(path(0));
        case "stat":
          return ws.stat(path(0));
        case "lstat":
          return ws.lstat(path(0));
        case "mkdir":
          return ws.mkdir(path(0), { recursive: args[1] === true });
        case "readdir":
          return ws.readdir(path(0));
        case "readdirTypes":
          return ws.readdir(path(0)).map((name) => ({
            name,
            kind: ws.lstat(`${path(0).replace(/\/$/, "")}/${name}`).kind,
          }));
        case "rm":
          return remove(ws, path(0), args[1] === true, args[2] === true);
        case "cp":
          return copy(ws, path(0), path(1), args[2] === true);
        case "mv":
          return ws.rename(path(0), path(1));
        case "chmod":
          return ws.chmod(path(0), Number(args[1]));
        case "symlink":
          return ws.symlink(path(0), path(1));
        case "link":
          return ws.link(path(0), path(1));
        case "readlink":
          return ws.readlink(path(0));
        case "realpath":
          return ws.realpath(path(0));
      }
    });
  }
}

function bytes(value: unknown): Uint8Array {
  if (value instanceof Uint8Array) return value;
  throw new FileSystemError("EINVAL", "?", "Cannot write content that is not bytes (EINVAL)");
}

function remove(ws: Workspace, path: string, recursive: boolean, force: boolean): void {
  if (!ws.exists(path) && !isLink(ws, path)) {
    if (force) return;
    ws.lstat(path); // throws ENOENT
  }
  const stat = ws.lstat(path);
  if (stat.kind !== "dir") return ws.unlink(path);
  if (!recursive) {
    throw new FileSystemError(
      "EISDIR",
      path,
      `Cannot remove "${path}": it is a directory (EISDIR)`,
    );
  }
  for (const name of ws.readdir(path)) {
    remove(ws, `${path.replace(/\/$/, "")}/${name}`, true, force);
  }
  ws.rmdir(path);
}

function isLink(ws: Workspace, path: string): boolean {
  try {
    return ws.lstat(path).kind === "symlink";
  } catch {
    return false;
  }
}

function copy(ws: Workspace, from: string, to: string, recursive: boolean): void {
  const stat = ws.stat(from);
  if (stat.kind === "dir") {
    if (!recursive) {
      throw new FileSystemError(
        "EISDIR",
        from,
        `Cannot copy "${from}": it is a directory (EISDIR)`,
      );
    }
    if (!ws.exists(to)) ws.mkdir(to, { mode: stat.mode });
    for (const name of ws.readdir(from)) {
      copy(ws, `${from.replace(/\/$/, "")}/${name}`, `${to.replace(/\/$/, "")}/${name}`, true);
    }
    return;
  }
  const target = ws.exists(to) && ws.stat(to).kind === "dir"
    ? `${to.replace(/\/$/, "")}/${from.split("/").pop()}`
    : to;
  ws.writeFile(target, ws.readFile(from), { mode: stat.mode });
}
