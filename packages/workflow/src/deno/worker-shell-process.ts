/**
 * Worker Shell's interpreter process: `deno run` of worker-shell-child.ts
 * with no permission flag (so no host file, environment variable, network or
 * subprocess), `--no-prompt` (a permission request is denied, never asked),
 * no configuration file, and a V8 heap limit. It needs nothing of the
 * caller's configuration: it resolves `just-bash` from Deno's cache through
 * its own frozen lock (worker-shell-child-lock.json), so the published CLI
 * and library users run shell blocks with no extra flag, and every host runs
 * the very interpreter version that lock names.
 *
 * Invariants:
 * - Frames are written and delivered in order; the interpreter's frames are
 *   bounded before they are buffered.
 * - The process ends when the host kills it, or when its stdin closes (the
 *   host exited or died), or, while a block computes, at a statement
 *   boundary once the host is gone (WS-37): it never outlives a host that is
 *   gone by more than one statement of its current block.
 * - Its death is reported once, with whether V8 ran out of heap.
 *
 * @module
 */
import { encodeFrame, type Frame, FrameError, FrameReader } from "./worker-shell-frames.ts";

/** Why the interpreter process ended. */
export interface ShellExit {
  /** Its exit code (128 + signal when killed). */
  code: number;
  /** The signal that ended it, if one did. */
  signal: string | null;
  /** V8 reached the heap limit. */
  outOfMemory: boolean;
  /** The first line of what it printed on stderr (a load failure), if anything. */
  detail: string | null;
  /** The host broke the framing (an oversized or malformed frame). */
  framing: string | null;
}

/** What a shell process reports. */
export interface ShellProcessHandlers {
  /** Receives each frame, in order. */
  onFrame(frame: Frame): void;
  /** Called once when the process has ended (killed or not). */
  onExit(exit: ShellExit): void;
}

/** The heap limit of the interpreter, in MiB, unless configured. */
export const DEFAULT_HEAP_LIMIT_MIB = 2048;

/**
 * Whether this module runs from a bundle (the installed `xmd`, see
 * `_build-cli.ts`) rather than from its own source file: a bundle keeps the
 * interpreter, bundled as its own entry, and its lock beside its chunks.
 */
const BUNDLED = !import.meta.url.endsWith("/worker-shell-process.ts");
/** The interpreter module: just-bash behind Worker Shell's frames. */
export const INTERPRETER_URL: URL = new URL(
  BUNDLED ? "./worker-shell-child.js" : "./worker-shell-child.ts",
  import.meta.url,
);
/** The interpreter's lock: just-bash and everything it imports, by version and integrity. */
const LOCK_URL = new URL("./worker-shell-child-lock.json", import.meta.url);
/**
 * The lock's content and where its copy goes, when this module is not a local
 * file (a published package). What names the copy (a hash, the temporary
 * folder) is loaded only then: a local module's load stays the frames' and
 * this module's own, so the CLI can start the interpreter before it loads the
 * store and its schemas (WF-190).
 */
const REMOTE_LOCK: { text: string; path: string } | undefined = LOCK_URL.protocol === "file:"
  ? undefined
  : await remoteLock();

async function remoteLock(): Promise<{ text: string; path: string }> {
  const text = JSON.stringify(
    (await import("./worker-shell-child-lock.json", { with: { type: "json" } })).default,
  );
  // One after the other: Deno 2.9 can panic on concurrent dynamic imports.
  const { sha256Hex } = await import("@xmd/core/protocol");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  // Not node:crypto: loading it (10-15 ms) would delay the start of every interpreter, which a
  // start wants as early as it can (WF-170), for a lock of a few KB hashed once per process.
  return { text, path: join(tmpdir(), `xmd-worker-shell-${sha256Hex(text).slice(0, 16)}.json`) };
}
/** The interpreter's requests carry paths and small values; content is payload. */
const BOUNDS = { maxHeader: 1024 * 1024, maxPayload: 1024 * 1024 * 1024 };
/** What the interpreter may print on stderr is kept only this far (it says why it died). */
const STDERR_TAIL = 16 * 1024;
/**
 * Variables the interpreter process needs to find Deno's cache (and a proxy,
 * should a module be missing from it); it cannot read any variable itself.
 */
const PASSED_ENV = [
  "DENO_DIR",
  "HOME",
  "XDG_CACHE_HOME",
  "LOCALAPPDATA",
  "USERPROFILE",
  "HTTPS_PROXY",
  "HTTP_PROXY",
  "NO_PROXY",
  "DENO_CERT",
];

/** The whole environment of an interpreter process: {@linkcode PASSED_ENV}'s variables this process has. */
export function interpreterEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of PASSED_ENV) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/** What keeps this process from starting the interpreter (a missing `--allow-run`), if anything. */
export function interpreterStartProblem(): string | null {
  const deno = Deno.execPath();
  if (Deno.permissions.querySync({ name: "run", command: deno }).state === "granted") return null;
  return `Cannot run shell blocks: Worker Shell starts its interpreter with ${deno}, which this process may not run (give Deno --allow-run=${deno}, or -A)`;
}

/**
 * The running interpreter process. Its handlers may be attached after it
 * starts (a process started ahead of the Worker Shell that will use it): what
 * it reports before then is delivered, in order, when they are.
 */
export class ShellProcess {
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #ended: Promise<void>;
  #killed = false;
  #handlers: ShellProcessHandlers | undefined;
  readonly #early: Frame[] = [];
  #exit: ShellExit | undefined;

  /**
   * Starts `entry` (the interpreter module) with a heap limit of
   * `heapLimitMib` MiB, reporting to `handlers` (or to those given to
   * {@linkcode ShellProcess.attach}).
   */
  constructor(entry: URL, heapLimitMib: number, handlers?: ShellProcessHandlers) {
    this.#handlers = handlers;
    const lock = lockPath();
    const env = interpreterEnvironment();
    this.#child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--quiet",
        "--no-config",
        `--lock=${lock}`,
        "--frozen",
        "--node-modules-dir=none",
        "--no-prompt",
        `--v8-flags=--max-old-space-size=${heapLimitMib}`,
        entry.href,
      ],
      clearEnv: true,
      env,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#writer = this.#child.stdin.getWriter();
    const framing = this.#read();
    const stderr = tail(this.#child.stderr);
    this.#ended = Promise.all([this.#child.status, framing, stderr]).then(
      ([status, framingError, text]) => {
        this.#exit = {
          code: status.code,
          signal: status.signal,
          outOfMemory: /out of memory|heap limit/i.test(text),
          detail: this.#killed ? null : firstLine(text),
          framing: framingError,
        };
        this.#handlers?.onExit(this.#exit);
      },
    );
  }

  /** Reports to `handlers` from now on, after what the process reported before (once). */
  attach(handlers: ShellProcessHandlers): void {
    if (this.#handlers) {
      throw new Error("A shell process reports to one Worker Shell; this is a bug in xmd");
    }
    this.#handlers = handlers;
    for (const frame of this.#early.splice(0)) handlers.onFrame(frame);
    if (this.#exit) handlers.onExit(this.#exit);
  }

  /** Sends one frame to the interpreter. */
  send(header: unknown, payload?: Uint8Array): void {
    // A write to a process that died fails; its death is reported by onExit.
    this.#writer.write(encodeFrame(header, payload)).catch(() => {});
  }

  /** Kills the process at once (SIGKILL: a CPU-bound script cannot delay it). */
  kill(): void {
    if (this.#killed) return;
    this.#killed = true;
    try {
      this.#child.kill("SIGKILL");
    } catch {
      // It has already exited.
    }
    this.#writer.close().catch(() => {});
  }

  /** Resolves once the process has ended and its pipes are drained. */
  get ended(): Promise<void> {
    return this.#ended;
  }

  async #read(): Promise<string | null> {
    const reader = new FrameReader(BOUNDS);
    try {
      for await (const chunk of this.#child.stdout) {
        for (const frame of reader.push(chunk)) {
          if (this.#handlers) this.#handlers.onFrame(frame);
          else this.#early.push(frame);
        }
      }
      return null;
    } catch (error) {
      if (!(error instanceof FrameError)) throw error;
      this.kill();
      return error.message;
    }
  }
}

let childLock: string | undefined;

/**
 * The interpreter's lock file, which pins the just-bash it imports. A
 * published package's copy is written once to the temporary folder, named by
 * its hash.
 */
function lockPath(): string {
  if (childLock) return childLock;
  if (REMOTE_LOCK === undefined) return childLock = filePath(LOCK_URL);
  const { text, path } = REMOTE_LOCK;
  try {
    Deno.statSync(path);
  } catch {
    const staging = `${path}.${crypto.randomUUID()}`;
    Deno.writeTextFileSync(staging, text);
    Deno.renameSync(staging, path);
  }
  return childLock = path;
}

/**
 * The path of a local `file:` URL, as `node:url`'s `fileURLToPath` gives it on
 * the POSIX hosts xmd runs on, without loading `node:url` for this one call.
 */
export function filePath(url: URL): string {
  return decodeURIComponent(url.pathname);
}

/** The last `STDERR_TAIL` characters of a stream, read to its end. */
async function tail(stream: ReadableStream<Uint8Array>): Promise<string> {
  let text = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    text = (text + chunk).slice(-STDERR_TAIL);
  }
  return text;
}

function firstLine(text: string): string | null {
  const line = text.split("\n").map((part) => part.trim()).find((part) => part !== "");
  // deno-lint-ignore no-control-regex
  return line === undefined ? null : line.replace(/\x1b\[[0-9;]*m/g, "").slice(0, 300);
}
