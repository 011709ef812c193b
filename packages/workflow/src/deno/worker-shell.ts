/**
 * Worker Shell: runs `sh`/`bash` exec blocks with `just-bash` in a Deno
 * process started with no permissions and a V8 heap limit, against the run's
 * Workspace (see worker-shell-process.ts).
 *
 * Invariants:
 * - The interpreter reaches the Workspace only through frames the host
 *   answers; each carries the current effect's token, and any other token is
 *   refused.
 * - A block that outlives its timeout, or is cancelled, is stopped by killing
 *   the process (a CPU-bound script cannot delay it); the next block gets a
 *   fresh process.
 * - A block whose interpreter runs out of heap fails with a `WorkerShellError`
 *   that says so (the host is unharmed); a process that dies for any other
 *   reason fails the block with `ShellLostError` (the run is interrupted).
 * - The process is kept warm between blocks of one run.
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
import { ShellLostError } from "../contracts/workflow-errors.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { workspacePath } from "../execution/workspace-file-system.ts";
import type { Frame } from "./worker-shell-frames.ts";
import {
  DEFAULT_HEAP_LIMIT_MIB,
  INTERPRETER_URL,
  interpreterStartProblem,
  type ShellExit,
  ShellProcess,
} from "./worker-shell-process.ts";
import { type PrestartedInterpreter, takePrestarted } from "./worker-shell-prestart.ts";
import {
  type FsOp,
  MUTATING_FS_OPS,
  PATH_DIRS,
  type PathDir,
  type PathDirs,
} from "./worker-shell-ops.ts";
import {
  type ReplyMessage,
  type WorkerMessage,
  WorkerMessageSchema,
} from "./worker-shell-protocol.ts";

/** A block Worker Shell cannot run (another language, an interpreter failure, out of memory). */
export class WorkerShellError extends EffectRefusal {
  /** The class name, which journals record. */
  override name = "WorkerShellError";
  /** Its stable code. */
  override readonly code = "shell.failed";
}

/** How Worker Shell runs its interpreter. */
export interface WorkerShellOptions {
  /** The interpreter's V8 heap limit in MiB (default 2048). */
  heapLimitMib?: number;
  /**
   * The interpreter module, speaking worker-shell-frames.ts (default:
   * just-bash's); tests stand in interpreters that misbehave on purpose.
   */
  interpreter?: URL;
}

/** The longest delay `setTimeout` honors (a longer one would fire at once); longer timeouts are clamped to it. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The block being run: how to end it. */
interface Block {
  token: string;
  process: ShellProcess;
  request: ShellRequest;
  output(stream: "stdout" | "stderr", text: string): void;
  done(exitCode: number): void;
  fail(error: Error): void;
}

const decoder = new TextDecoder();

/** A `ShellProvider` running blocks in a permission-less process against a Workspace. */
export class WorkerShell implements ShellProvider, Disposable, AsyncDisposable {
  readonly #workspace: Workspace;
  readonly #heapLimitMib: number;
  readonly #interpreter: URL;
  #process: ShellProcess | undefined;
  #block: Block | undefined;
  readonly #ending = new Set<Promise<void>>();

  /**
   * A shell over `workspace`; its first block runs in `prestarted`'s process
   * (started with the same `options`) if one is given and still running.
   */
  constructor(
    workspace: Workspace,
    options: WorkerShellOptions = {},
    prestarted?: PrestartedInterpreter,
  ) {
    this.#workspace = workspace;
    this.#heapLimitMib = options.heapLimitMib ?? DEFAULT_HEAP_LIMIT_MIB;
    this.#interpreter = options.interpreter ?? INTERPRETER_URL;
    const process = prestarted && takePrestarted(prestarted);
    if (process) this.#adopt(process);
  }

  /** Starts the interpreter ahead of the first block (it takes a moment to load). */
  warm(): void {
    this.#process ??= this.#spawn();
  }

  /**
   * Runs one block to completion, timeout (exit code 124, `timedOut: true`) or
   * cancellation (exit code 130). Rejects with a `WorkerShellError` for another
   * language, an interpreter failure or an interpreter out of memory; with a
   * `FileSystemError` when `cwd` is not a Workspace directory; with
   * `ShellLostError` when the interpreter process dies for another reason;
   * and with the Workspace's own error when the Workspace fails to serve a
   * request (storage, corruption): that error is not the script's to handle,
   * so the interpreter is stopped and the run stops.
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
    let dirs: PathDirs;
    try {
      this.#assertDirectory(cwd, request.cwd);
      dirs = this.#pathDirs();
    } catch (error) {
      return Promise.reject(error);
    }
    if (request.signal.aborted) {
      return Promise.resolve({ exitCode: 130, stdout: "", stderr: "", timedOut: false });
    }
    let process: ShellProcess;
    try {
      process = this.#process ??= this.#spawn();
    } catch (error) {
      // Not the document's failure (a missing permission, no Deno binary):
      // the run stops interrupted, to resume where the interpreter can start.
      const problem = interpreterStartProblem() ??
        `Cannot start Worker Shell's interpreter: ${
          error instanceof Error ? error.message : error
        }`;
      return Promise.reject(new ShellLostError(problem, { cause: error }));
    }
    const token = crypto.randomUUID();
    return new Promise<ShellResult>((resolve, reject) => {
      // What has streamed so far: a block stopped by its timeout or a
      // cancellation keeps the output its reader has already seen.
      let stdout = "";
      let stderr = "";
      const finish = (outcome: () => void) => {
        if (this.#block !== block) return;
        this.#block = undefined;
        clearTimeout(timer);
        request.signal.removeEventListener("abort", onAbort);
        outcome();
      };
      const stop = (exitCode: number, timedOut: boolean) =>
        finish(() => {
          this.#kill();
          resolve({ exitCode, stdout, stderr, timedOut });
        });
      const block: Block = {
        token,
        process,
        request,
        output: (stream, text) => {
          if (stream === "stdout") {
            stdout += text;
            request.onStdout(text);
          } else {
            stderr += text;
            request.onStderr(text);
          }
        },
        done: (exitCode) => finish(() => resolve({ exitCode, stdout, stderr, timedOut: false })),
        fail: (error) =>
          finish(() => {
            this.#kill();
            reject(error);
          }),
      };
      this.#block = block;
      const timer = setTimeout(
        () => stop(124, true),
        Math.min(Math.max(request.timeoutMs, 0), MAX_TIMER_MS),
      );
      const onAbort = () => stop(130, false);
      request.signal.addEventListener("abort", onAbort, { once: true });
      process.send({
        type: "run",
        token,
        script: request.script,
        cwd,
        timeoutMs: request.timeoutMs,
        dirs,
      });
    });
  }

  /** Kills the interpreter. */
  [Symbol.dispose](): void {
    this.#kill();
  }

  /** Kills the interpreter and waits until every process it started has ended. */
  async [Symbol.asyncDispose](): Promise<void> {
    this.#kill();
    await Promise.all(this.#ending);
  }

  #spawn(): ShellProcess {
    return this.#adopt(new ShellProcess(this.#interpreter, this.#heapLimitMib));
  }

  /**
   * Makes `process` this shell's current one: its frames and its end are
   * reported here (an end it reported before, at once, so a prestarted process
   * that has died is not kept).
   */
  #adopt(process: ShellProcess): ShellProcess {
    const ended = process.ended.finally(() => this.#ending.delete(ended));
    this.#ending.add(ended);
    this.#process = process;
    process.attach({
      onFrame: (frame) => this.#receive(process, frame),
      onExit: (exit) => this.#exited(process, exit),
    });
    return process;
  }

  #kill(): void {
    this.#process?.kill();
    this.#process = undefined;
  }

  #receive(process: ShellProcess, frame: Frame): void {
    const block = this.#block?.process === process ? this.#block : undefined;
    const parsed = WorkerMessageSchema.safeParse(frame.header);
    if (!parsed.success) {
      block?.fail(new WorkerShellError("Worker Shell's interpreter sent a malformed message"));
      process.kill();
      return;
    }
    const message = parsed.data;
    if (block === undefined || message.token !== block.token) {
      if (message.type === "fs") {
        process.send({
          type: "reply",
          id: message.id,
          error: { code: "EACCES", message: "this interpreter's effect is over" },
        });
      }
      return;
    }
    switch (message.type) {
      case "fs": {
        const served = this.#serve(message, frame.payload);
        if (served instanceof Error) block.fail(served);
        else process.send(served.reply, served.payload);
        return;
      }
      case "output":
        block.output(message.stream, decoder.decode(frame.payload));
        return;
      case "done":
        block.done(message.exitCode);
        return;
      case "crash":
        block.fail(new WorkerShellError(`The shell interpreter failed: ${message.message}`));
        return;
    }
  }

  #exited(process: ShellProcess, exit: ShellExit): void {
    if (this.#process === process) this.#process = undefined;
    const block = this.#block?.process === process ? this.#block : undefined;
    if (block === undefined) return;
    if (exit.framing !== null) {
      block.fail(
        new WorkerShellError(`Worker Shell's interpreter broke its protocol: ${exit.framing}`),
      );
    } else if (exit.outOfMemory) {
      block.fail(
        new WorkerShellError(
          `Cannot finish the block: Worker Shell ran out of memory (its heap limit is ${this.#heapLimitMib} MiB)`,
        ),
      );
    } else {
      const how = exit.signal === null ? `exit code ${exit.code}` : `signal ${exit.signal}`;
      block.fail(
        new ShellLostError(
          `Worker Shell's interpreter stopped (${how}) before the block ended${
            exit.detail === null ? "" : `: ${exit.detail}`
          }; the block's changes were discarded`,
        ),
      );
    }
  }

  #assertDirectory(cwd: string, logical: string): void {
    let kind: string;
    try {
      kind = this.#workspace.stat(cwd).kind;
    } catch (error) {
      if (!(error instanceof FileSystemError)) throw error;
      throw new FileSystemError(
        error.posix,
        logical,
        `Cannot run a block in "${logical}": no such Workspace directory (${error.posix})`,
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
  #serve(
    message: Extract<WorkerMessage, { type: "fs" }>,
    content: Uint8Array,
  ): { reply: ReplyMessage; payload?: Uint8Array } | Error {
    try {
      let reply: { reply: ReplyMessage; payload?: Uint8Array };
      try {
        const value = this.#apply(message.op, message.args, content);
        reply = value instanceof Uint8Array
          ? { reply: { type: "reply", id: message.id, bytes: true }, payload: value }
          : { reply: { type: "reply", id: message.id, value } };
      } catch (error) {
        if (!(error instanceof FileSystemError)) throw error;
        reply = {
          reply: {
            type: "reply",
            id: message.id,
            error: { code: error.posix, message: error.message },
          },
        };
      }
      if (MUTATING_FS_OPS.has(message.op)) reply.reply.dirs = this.#pathDirs();
      return reply;
    } catch (error) {
      // A storage or corruption failure must stop the run (it is never a
      // result the script could observe, handle with `||`, and keep).
      return error instanceof Error ? error : new Error(String(error));
    }
  }

  /** The default `PATH`'s folders as they are now (see {@linkcode PathDirs}). */
  #pathDirs(): PathDirs {
    const [usrBin, bin] = PATH_DIRS.map((dir) => pathDir(this.#workspace, dir));
    return [usrBin, bin];
  }

  /** Applies one filesystem request to the Workspace, each in its own savepoint. */
  #apply(op: FsOp, args: readonly unknown[], content: Uint8Array): unknown {
    const ws = this.#workspace;
    const path = (index: number) => {
      const value = args[index];
      if (typeof value !== "string") {
        throw new FileSystemError("EINVAL", "?", "Cannot use a path that is not a string (EINVAL)");
      }
      return value;
    };
    // The mode of what a request creates, when the interpreter's umask is not 022 (WS-163).
    const creating = (index: number): { mode?: number } => {
      const value = args[index];
      if (value === undefined) return {};
      if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value > 0o777) {
        throw new FileSystemError("EINVAL", "?", "Cannot create with a mode out of range (EINVAL)");
      }
      return { mode: value };
    };
    return ws.sql.transaction(() => {
      switch (op) {
        case "readFile":
          return ws.readFile(path(0));
        case "writeFile":
          return ws.writeFile(path(0), content, creating(1));
        case "appendFile": {
          const existing = ws.exists(path(0)) ? ws.readFile(path(0)) : new Uint8Array();
          const added = content;
          const joined = new Uint8Array(existing.length + added.length);
          joined.set(existing);
          joined.set(added, existing.length);
          return ws.writeFile(path(0), joined, creating(1));
        }
        case "exists":
          return ws.exists(path(0));
        case "stat":
          return ws.stat(path(0));
        case "lstat":
          return ws.lstat(path(0));
        case "mkdir":
          return ws.mkdir(path(0), { recursive: args[1] === true, ...creating(2) });
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

/** What the host says of `dir`, one of the default `PATH`'s folders. */
function pathDir(ws: Workspace, dir: string): PathDir {
  const exists = ws.exists(dir);
  if (exists && ws.stat(dir).kind === "dir") return { exists };
  // No directory: every path under it is refused on the way, in the same words but its own path.
  const probe = `${dir}/_`;
  try {
    ws.lstat(probe);
  } catch (error) {
    if (!(error instanceof FileSystemError)) throw error;
    const words = /^Cannot resolve "(.*)": (.*) \(([A-Z]+)\)$/.exec(error.message);
    if (words?.[1] === probe && words[3] === error.posix) {
      return { exists, under: { code: error.posix, why: words[2] } };
    }
  }
  return { exists };
}

function remove(ws: Workspace, path: string, recursive: boolean, force: boolean): void {
  if (!ws.exists(path) && !isLink(ws, path)) {
    if (force) return;
    ws.lstat(path); // throws ENOENT
  }
  const stat = ws.lstat(path);
  if (stat.kind !== "dir") return ws.unlink(path);
  // As just-bash's own filesystem: an empty folder goes without `recursive` (its `rmdir` asks for
  // exactly that), one that is not empty is refused (ENOTEMPTY).
  if (!recursive) return ws.rmdir(path);
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
  // A recursive copy copies a link as a link, as just-bash's own filesystem and `cp -R` do: its
  // target is not copied, and a link back up the tree is no loop.
  if (recursive && isLink(ws, from)) {
    if (isLink(ws, to) || (ws.exists(to) && ws.stat(to).kind !== "dir")) ws.unlink(to);
    return ws.symlink(ws.readlink(from), to);
  }
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
