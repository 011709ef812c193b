/**
 * Worker Shell's interpreter: `just-bash` in a Deno process started with no
 * permissions and a V8 heap limit (see worker-shell-process.ts). Its
 * filesystem is the run's Workspace, reached only through frames to the host
 * on stdout that carry the effect's token; it has no host file, no
 * environment variable, no network and no subprocess. The host's frames
 * arrive on stdin; when stdin ends (the host went away), the process exits,
 * and a running block ends it at a statement boundary once the host is gone.
 *
 * Run as `deno run --no-config --lock=<worker-shell-child-lock.json> <this
 * module>`: `just-bash` is imported by the exact version that lock pins (a
 * test keeps the two and deno.lock equal), so this process needs no
 * configuration file of its own. The import is static: Deno's V8 code cache
 * serves a statically imported npm module, while a dynamic `import()` of one
 * was compiled afresh, and its cache rewritten, on every start (about 12 ms
 * of each start, measured).
 *
 * @module
 */
import { encodingOf, type EncodingOption, fromBytes, toBytes } from "./worker-shell-bytes.ts";
import { encodeFrame, FrameReader } from "./worker-shell-frames.ts";
import { type FsOp, MUTATING_FS_OPS, PATH_DIRS, type PathDirs } from "./worker-shell-ops.ts";
import type { ReplyMessage, RunMessage } from "./worker-shell-protocol.ts";
import { OutputDecoder } from "./worker-shell-output.ts";
import { braceRangePlugin } from "./worker-shell-brace-ranges.ts";
import { errexitListsPlugin, MAY_SET_ERREXIT } from "./worker-shell-errexit.ts";
import { functionStatusPlugin, parsedStatusPlugin } from "./worker-shell-function-status.ts";
import { assignmentStatusPlugin } from "./worker-shell-assignment-status.ts";
import { dirGlobsPlugin, MAY_GLOB_DIRS } from "./worker-shell-dir-globs.ts";
import { MAY_SET_NOUNSET, nounsetDefaultsPlugin } from "./worker-shell-nounset-defaults.ts";
import { unsetMessagePlugin } from "./worker-shell-unset-messages.ts";
import { makeShellErrorsFatal, MEET_FATAL_ERRORS } from "./worker-shell-fatal-errors.ts";
import { parsedScriptsPlugin, transformParsedScripts } from "./worker-shell-parsed-scripts.ts";
import { captureInterpreter } from "./worker-shell-interpreter.ts";
import { MAY_TRAP_ERR, runErrTraps } from "./worker-shell-err-trap.ts";
import { MAY_SET_XTRACE, streamingPlugin, streamOf } from "./worker-shell-streaming.ts";
import { mergedStreamsPlugin } from "./worker-shell-merged-streams.ts";
import { MAY_JOIN_ARRAYS, starJoinsPlugin } from "./worker-shell-star-joins.ts";
import { forArgsPlugin } from "./worker-shell-for-args.ts";
import { commandWordsPlugin } from "./worker-shell-command-words.ts";
import { declaredArraysPlugin, mayDeclareArrays } from "./worker-shell-declared-arrays.ts";
import { getoptsPlugin, mayRunGetopts } from "./worker-shell-getopts.ts";
import { arithTextPlugin, mayExpandInArithmetic } from "./worker-shell-arith-text.ts";
import { redirectFailuresPlugin } from "./worker-shell-redirect-failures.ts";
import {
  INHERITS_ERREXIT,
  substitutionErrexitPlugin,
} from "./worker-shell-substitution-errexit.ts";
import { cmpCommand } from "./worker-shell-cmp.ts";
import { whichCommand } from "./worker-shell-which.ts";
import {
  backgroundPlugin,
  jobCommand,
  MAY_RUN_JOBS,
  waitCommand,
} from "./worker-shell-background.ts";
import { MAY_READ_SUBSTITUTION, readSubstitutionPlugin } from "./worker-shell-read-substitution.ts";
import { refusalWords } from "./worker-shell-errno-words.ts";
import { BYTE_ESCAPE, echoCommand, printfCommand } from "./worker-shell-byte-escapes.ts";
import { awkCommand } from "./worker-shell-awk.ts";
import { bcCommand } from "./worker-shell-bc.ts";
import { cutCommand } from "./worker-shell-cut.ts";
import { lnCommand } from "./worker-shell-ln.ts";
import { groupsCommand, idCommand } from "./worker-shell-id.ts";
import { SCRIPT_COMMANDS, trackScriptSources } from "./worker-shell-script-sources.ts";
import { cpCommand } from "./worker-shell-cp.ts";
import { dateCommand } from "./worker-shell-date.ts";
import { diffCommand } from "./worker-shell-diff.ts";
import { namingFoldersIn } from "./worker-shell-directory-reads.ts";
import { envCommand } from "./worker-shell-env.ts";
import { envsubstCommand } from "./worker-shell-envsubst.ts";
import { grepCommand } from "./worker-shell-grep.ts";
import { headCommand } from "./worker-shell-head.ts";
import { hdCommand, hexdumpCommand } from "./worker-shell-hexdump.ts";
import { installCommand } from "./worker-shell-install.ts";
import { lsCommand } from "./worker-shell-ls.ts";
import { mkdirCommand } from "./worker-shell-mkdir.ts";
import { mvCommand } from "./worker-shell-mv.ts";
import { mktempCommand } from "./worker-shell-mktemp.ts";
import { odCommand } from "./worker-shell-od.ts";
import { pasteCommand } from "./worker-shell-paste.ts";
import { realpathCommand } from "./worker-shell-realpath.ts";
import { sedCommand } from "./worker-shell-sed.ts";
import { seqCommand } from "./worker-shell-seq.ts";
import { sha224sumCommand, sha384sumCommand, sha512sumCommand } from "./worker-shell-shasum.ts";
import { sortCommand } from "./worker-shell-sort.ts";
import { trCommand } from "./worker-shell-tr.ts";
import { creationMode, resetUmask, umaskCommand } from "./worker-shell-umask.ts";
import { truncateCommand } from "./worker-shell-truncate.ts";
import { uniqCommand } from "./worker-shell-uniq.ts";
import { BlockTraps } from "./worker-shell-trap.ts";
import { collatePlainStringsWithoutIcu } from "./worker-shell-collation.ts";
import { xargsCommand } from "./worker-shell-xargs.ts";
import { xxdCommand } from "./worker-shell-xxd.ts";
// The interpreter runs with no configuration file, so its import names the exact version.
// deno-lint-ignore no-import-prefix
import { Bash, getCommandNames, type TransformPlugin } from "npm:just-bash@3.4.2";

// Node-compat `process.env` is a permission-checked view of the host's
// environment; some of just-bash's dependencies read it when called (none
// while its modules load, or this permission-less process would not start).
// Give them an empty one before any Bash is built.
// deno-lint-ignore no-explicit-any
const nodeProcess = (globalThis as any).process;
if (nodeProcess) {
  Object.defineProperty(nodeProcess, "env", { value: {}, configurable: true, writable: true });
}
// stdout carries frames and stderr is read by the host only to tell why the
// process died: nothing a dependency writes on the console may reach them.
for (const method of ["log", "info", "debug", "warn", "error", "trace"] as const) {
  console[method] = () => {};
}

// Before any Bash is built: its SHELLOPTS sort would otherwise build ICU's collator (WS-136).
collatePlainStringsWithoutIcu();

// Held here, before any block runs.
const writeOut = Deno.stdout.writeSync.bind(Deno.stdout);
const exit = Deno.exit;

/**
 * Sends one frame to the host, written to the pipe before it returns, so
 * frames keep their order and a statement's output has left this process
 * before the next statement runs. An asynchronous write would wait for the
 * event loop, which a CPU-bound block (`echo started; while :; do :; done`)
 * never yields to: its output could then stay here until the block ended or
 * timed out. A full pipe blocks this process until the host reads; the host
 * reads without waiting on this process. A host that is gone ends it.
 */
function send(header: unknown, payload?: Uint8Array): void {
  const frame = encodeFrame(header, payload);
  try {
    for (let written = 0; written < frame.length;) {
      written += writeOut(frame.subarray(written));
    }
  } catch {
    exit(0);
  }
}

type IFileSystem = ConstructorParameters<typeof Bash>[0] extends infer O
  ? O extends { fs?: infer F } ? NonNullable<F> : never
  : never;

/**
 * Every built-in command but `sqlite3`: it runs in a nested Worker loaded from
 * disk, which this permission-less process cannot read (its refusal would name
 * a host path). Network, Python and JavaScript commands are never registered.
 */
const COMMANDS = getCommandNames().filter((name) => name !== "sqlite3") as NonNullable<
  ConstructorParameters<typeof Bash>[0]
>["commands"];

/**
 * Worker Shell's own commands, over just-bash's of the same name or where it
 * has none; those that read files name a folder as GNU's do (WS-158).
 */
const OWN_COMMANDS = namingFoldersIn([
  xargsCommand,
  realpathCommand,
  cpCommand,
  headCommand,
  sedCommand,
  mktempCommand,
  pasteCommand,
  mkdirCommand,
  mvCommand,
  awkCommand,
  grepCommand,
  dateCommand,
  seqCommand,
  umaskCommand,
  installCommand,
  truncateCommand,
  sortCommand,
  trCommand,
  uniqCommand,
  cmpCommand,
  envCommand,
  lsCommand,
  diffCommand,
  odCommand,
  xxdCommand,
  hexdumpCommand,
  hdCommand,
  envsubstCommand,
  sha224sumCommand,
  sha384sumCommand,
  sha512sumCommand,
  whichCommand,
  jobCommand,
  waitCommand,
  bcCommand,
  cutCommand,
  lnCommand,
  ...SCRIPT_COMMANDS,
  idCommand,
  groupsCommand,
]);

/** The name of every command a block can run without the Workspace holding it. */
const COMMAND_NAMES: ReadonlySet<string> = new Set([
  ...(COMMANDS ?? []),
  ...OWN_COMMANDS.map((command) => command.name),
]);

/** bash's exemptions from errexit in and-or lists (WS-149), for a shell of these commands (WS-178). */
const errexitLists = errexitListsPlugin(COMMAND_NAMES);

const MIB = 1024 * 1024;

/**
 * just-bash's defense-in-depth is off (WS-117). It patches JavaScript's
 * globals while a script runs, so that a script that reached JavaScript
 * through a flaw of the interpreter could not use the capabilities of the
 * process around it; this process has none to use (no permission: no file,
 * variable, network or subprocess; WS-34), and its frames serve no more than
 * the block's own commands may ask. It cost about 1 ms a block and 10 ms of
 * the warm-up, and its checks, made at every step of an awk program, made awk
 * three to five times slower.
 */
const UNGUARDED = { defenseInDepth: false } as const;

/**
 * The first `Bash` and the first `exec` of a process pay once for what every
 * later block reuses: ICU's collation (just-bash sorts `SHELLOPTS` with
 * `localeCompare`), the parser's and the interpreter's first compilation, the first command
 * substitution and arithmetic (about 40 ms, more than a block's own work).
 * They are paid here, as soon as just-bash has loaded, on a `Bash` of its own
 * over just-bash's in-memory filesystem, with nothing sent to the host: a
 * prestarted process pays them while the host still checks the document and
 * creates the run (WF-191). A block waits for it, so no block ever shares the
 * process with it, and it leaves what any earlier block leaves: just-bash's
 * loaded modules, never a file, a variable or output. It also meets an
 * unbound variable, an arithmetic error and an `exit` once, which lets the
 * first two end the shell as in bash (WS-153, WS-165), and finds the
 * interpreter Worker Shell hooks (worker-shell-interpreter.ts).
 */
const warmed: Promise<void> = makeShellErrorsFatal(async () => {
  const interpreter = await captureInterpreter(() =>
    new Bash({ commands: COMMANDS, ...UNGUARDED })
      .exec(`warm=$(echo "$((1 + 1))"); echo "$warm" >/dev/null; ${MEET_FATAL_ERRORS}`)
  );
  // The interpreter's hooks: the scripts it parses itself get the block's transforms (WS-177),
  // a failing statement runs the ERR trap (WS-184).
  if (interpreter) {
    transformParsedScripts(interpreter);
    runErrTraps(interpreter);
    // `BASH_SOURCE` names the file whose code runs (WS-192).
    trackScriptSources(interpreter);
  }
}).then(() => {}, () => {});

/**
 * Ends this process once the host is gone, even while a block computes. The
 * host's death closes stdin, but a CPU-bound block (`while :; do :; done`)
 * never yields to the event loop that would read that end, and its own time
 * limit would end it only after up to that limit (an hour, if the document
 * asked for one). just-bash reads its `signal`'s `aborted` before every
 * statement (its cooperative cancellation); this one's getter, every 256th
 * read, compares the parent process id (no permission needed) with the
 * host's, which it stops being once the host dies and this process is
 * adopted, and exits.
 */
const HOST_CHECK_EVERY = 256;
const ppid = Object.getOwnPropertyDescriptor(Deno, "ppid")?.get;
// A Deno whose `ppid` is no getter (none known) keeps the stdin watch alone.
const parentOf = ppid ? ppid.bind(Deno) as () => number : () => host;
const host: number = Deno.ppid;
let statements = 0;
const hostWatch = new AbortController().signal;
Object.defineProperty(hostWatch, "aborted", {
  get(): boolean {
    if (++statements % HOST_CHECK_EVERY === 0 && parentOf() !== host) exit(0);
    return false;
  },
});

const pending = new Map<
  number,
  { resolve(value: unknown): void; reject(error: Error): void; change: number | undefined }
>();
let nextId = 0;
let token = "";

class PosixError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

/**
 * A redirection's file the Workspace would not open, in bash's words
 * (`bash: /out/log: No such file or directory`; WS-154). just-bash opens an
 * output redirection's file as an empty binary write before its command
 * runs, the one caller that writes so (`touch` writes empty text), and
 * prints what such an error says where the command fails.
 */
class RedirectionRefused extends PosixError {
  constructor(path: string, refusal: PosixError) {
    super(refusal.code, `bash: ${path}: ${refusalWords(refusal)}`);
  }
}

/** A creating request's path, and the mode `umask` gives what it creates when not 022 (WS-163). */
function created(path: string, kind: "file" | "dir"): (string | number)[] {
  const mode = creationMode(kind);
  return mode === undefined ? [path] : [path, mode];
}

/** `error`, in bash's words when it refused the opening write of a redirection. */
function opening(
  path: string,
  content: string | Uint8Array,
  options: EncodingOption | undefined,
  error: unknown,
): unknown {
  const opens = content === "" && encodingOf(options) === "binary";
  return opens && error instanceof PosixError ? new RedirectionRefused(path, error) : error;
}

/**
 * `/usr/bin` and `/bin` as the host last said, or undefined from the moment
 * a request that may change the Workspace is sent until its reply (the
 * latest such request's) says again. This process is the Workspace's only
 * writer while its block runs, so the host's answer holds until its next
 * such request.
 */
let dirs: PathDirs | undefined;
/** How many requests that may change the Workspace were sent. */
let changes = 0;

/**
 * What the host last answered to a `stat` that `exists` asked, until the
 * next request of any kind: just-bash checks a redirection's target with
 * `exists` then `stat` of the same path (WS-162), which so cost one round
 * trip, not two. Sound because nothing but this process's requests changes
 * the Workspace while its block runs, and any request ends it.
 */
let lastStat: { path: string; stat: Stat } | undefined;

function call(op: FsOp, args: (string | number | boolean)[], content?: Uint8Array) {
  lastStat = undefined;
  const id = nextId++;
  const change = MUTATING_FS_OPS.has(op) ? ++changes : undefined;
  if (change !== undefined) dirs = undefined;
  return new Promise<unknown>((resolve, reject) => {
    pending.set(id, { resolve, reject, change });
    send({ type: "fs", token, id, op, args }, content);
  });
}

/**
 * The folder of {@linkcode dirs} that `path` names (`self`) or lies under, if
 * any and known. just-bash looks each command up as `/usr/bin/<name>`,
 * `/bin/<name>`, then `/usr/bin` (three round trips a command, about 1 ms)
 * before it runs its own, and a command it ran before as a `stat` of the path
 * it then remembered. Only a plain absolute path (no empty, `.` or `..` part)
 * is answered here.
 */
function pathDir(path: string) {
  if (dirs === undefined) return undefined;
  for (let index = 0; index < PATH_DIRS.length; index++) {
    const dir = PATH_DIRS[index];
    if (path === dir) return { fact: dirs[index], self: true };
    if (
      path.startsWith(`${dir}/`) &&
      path.slice(dir.length + 1).split("/").every((part) =>
        part !== "" && part !== "." && part !== ".."
      )
    ) return { fact: dirs[index], self: false };
  }
  return undefined;
}

/** What `exists` of `path` answers without asking the host, or undefined. */
function knownExists(path: string): boolean | undefined {
  const known = pathDir(path);
  if (known === undefined) return undefined;
  if (known.self) return known.fact.exists;
  return known.fact.under ? false : undefined;
}

/**
 * Whether a command stands at `path` without the Workspace holding it (WS-132):
 * `path` is `/usr/bin/<name>` or `/bin/<name>` for a command a block can run,
 * and that folder is a directory. just-bash runs a built-in found at neither
 * only while `/usr/bin` does not exist, so a Workspace `/usr/bin` would hide
 * every built-in it does not hold; answering `exists`, `stat` and `lstat` of
 * such a path as an executable file lets the lookup find the command there,
 * as on a system whose `/usr/bin` holds it. Asked only once the host said the
 * Workspace has nothing at `path`.
 */
function commandStandsAt(path: string): boolean {
  if (dirs === undefined) return false;
  for (let index = 0; index < PATH_DIRS.length; index++) {
    const dir = PATH_DIRS[index];
    if (!path.startsWith(`${dir}/`)) continue;
    const fact = dirs[index];
    return fact.exists && fact.under === undefined && COMMAND_NAMES.has(path.slice(dir.length + 1));
  }
  return false;
}

/** What `stat` and `lstat` say of a command standing where the Workspace holds nothing. */
const COMMAND_STAT: Stat = { kind: "file", mode: 0o755, size: 0, ino: 0 };

/** `stat` or `lstat` of `path` by the host, or a command standing there when it holds nothing. */
async function statOf(op: "stat" | "lstat", path: string) {
  try {
    return fsStat(await call(op, [path]) as Stat);
  } catch (error) {
    if (error instanceof PosixError && error.code === "ENOENT" && commandStandsAt(path)) {
      return fsStat(COMMAND_STAT);
    }
    throw error;
  }
}

/** The host's refusal of `stat` or `lstat` of `path`, when known without asking it. */
function knownRefusal(path: string): PosixError | undefined {
  const known = pathDir(path);
  const under = known?.self === false ? known.fact.under : undefined;
  return under &&
    new PosixError(under.code, `Cannot resolve "${path}": ${under.why} (${under.code})`);
}

function normalize(path: string): string {
  const parts: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  return "/" + parts.join("/");
}

type Stat = { kind: "dir" | "file" | "symlink"; mode: number; size: number; ino: number };

/**
 * `/dev/null` is not a Workspace file: writes to it vanish and it reads as
 * empty, so `cmd > /dev/null 2>&1` works and leaves no trace in any root.
 */
const DEV_NULL = "/dev/null";
const DEV_NULL_STAT: Stat = { kind: "file", mode: 0o666, size: 0, ino: 0 };

const encoder = new TextEncoder();

/** Sends one decoded chunk of the block's output to the host. */
function post(stream: "stdout" | "stderr", data: string): void {
  if (data) send({ type: "output", token, stream }, encoder.encode(data));
}

/** The block's output as it is produced (see worker-shell-streaming.ts). */
let output = { stdout: new OutputDecoder(), stderr: new OutputDecoder() };

/** A stream device reads as `/dev/null` does, and its writes go to the host. */
function isDevice(path: string): boolean {
  return path === DEV_NULL || streamOf(path) !== undefined;
}

function toDevice(path: string, content: string | Uint8Array, options: EncodingOption): void {
  const stream = streamOf(path);
  if (stream) post(stream, output[stream].write(content, encodingOf(options)));
}

function fsStat(stat: Stat) {
  return {
    isFile: stat.kind === "file",
    isDirectory: stat.kind === "dir",
    isSymbolicLink: stat.kind === "symlink",
    mode: stat.mode,
    size: stat.size,
    mtime: new Date(0),
    // One device: `dev` + `ino` is how just-bash tells files apart (`split`,
    // `cp` onto itself, `-ef`); without it every identity check fails.
    dev: 1,
    ino: stat.ino,
  };
}

const workspaceFs = {
  async readFile(path: string, options?: EncodingOption): Promise<string> {
    return fromBytes(await workspaceFs.readFileBuffer(path), encodingOf(options));
  },
  async readFileBytes(path: string): Promise<string> {
    return fromBytes(await workspaceFs.readFileBuffer(path), "binary");
  },
  async readFileBuffer(path: string): Promise<Uint8Array> {
    if (isDevice(path)) return new Uint8Array();
    return await call("readFile", [path]) as Uint8Array;
  },
  async writeFile(
    path: string,
    content: string | Uint8Array,
    options?: EncodingOption,
  ): Promise<void> {
    if (isDevice(path)) return toDevice(path, content, options);
    await call("writeFile", created(path, "file"), toBytes(content, encodingOf(options))).catch(
      (error) => {
        throw opening(path, content, options, error);
      },
    );
  },
  async appendFile(
    path: string,
    content: string | Uint8Array,
    options?: EncodingOption,
  ): Promise<void> {
    if (isDevice(path)) return toDevice(path, content, options);
    await call("appendFile", created(path, "file"), toBytes(content, encodingOf(options))).catch(
      (error) => {
        throw opening(path, content, options, error);
      },
    );
  },
  async exists(path: string): Promise<boolean> {
    if (isDevice(path)) return true;
    const known = knownExists(path);
    if (known !== undefined) return known || commandStandsAt(path);
    // Asked as a `stat`, kept for a `stat` of the same path right after (WS-162).
    let stat: Stat;
    try {
      stat = await call("stat", [path]) as Stat;
    } catch (error) {
      if (error instanceof PosixError) return commandStandsAt(path);
      throw error;
    }
    lastStat = { path, stat };
    return true;
  },
  async stat(path: string) {
    if (isDevice(path)) return fsStat(DEV_NULL_STAT);
    const refusal = knownRefusal(path);
    if (refusal) throw refusal;
    const kept = lastStat?.path === path ? lastStat.stat : undefined;
    lastStat = undefined;
    if (kept) return fsStat(kept);
    return await statOf("stat", path);
  },
  async lstat(path: string) {
    if (isDevice(path)) return fsStat(DEV_NULL_STAT);
    const refusal = knownRefusal(path);
    if (refusal) throw refusal;
    return await statOf("lstat", path);
  },
  async mkdir(path: string, options?: { recursive?: boolean }): Promise<void> {
    const mode = creationMode("dir");
    await call("mkdir", [path, options?.recursive ?? false, ...(mode === undefined ? [] : [mode])]);
  },
  async readdir(path: string): Promise<string[]> {
    return await call("readdir", [path]) as string[];
  },
  async readdirWithFileTypes(path: string) {
    const entries = await call("readdirTypes", [path]) as { name: string; kind: Stat["kind"] }[];
    return entries.map((entry) => ({
      name: entry.name,
      isFile: entry.kind === "file",
      isDirectory: entry.kind === "dir",
      isSymbolicLink: entry.kind === "symlink",
    }));
  },
  async rm(path: string, options?: { recursive?: boolean; force?: boolean }): Promise<void> {
    await call("rm", [path, options?.recursive ?? false, options?.force ?? false]);
  },
  async cp(src: string, dest: string, options?: { recursive?: boolean }): Promise<void> {
    await call("cp", [src, dest, options?.recursive ?? false]);
  },
  async mv(src: string, dest: string): Promise<void> {
    await call("mv", [src, dest]);
  },
  resolvePath(base: string, path: string): string {
    return normalize(path.startsWith("/") ? path : `${base}/${path}`);
  },
  getAllPaths(): string[] {
    return [];
  },
  async chmod(path: string, mode: number): Promise<void> {
    await call("chmod", [path, mode]);
  },
  async symlink(target: string, linkPath: string): Promise<void> {
    await call("symlink", [target, linkPath]);
  },
  async link(existingPath: string, newPath: string): Promise<void> {
    await call("link", [existingPath, newPath]);
  },
  async readlink(path: string): Promise<string> {
    return await call("readlink", [path]) as string;
  },
  async realpath(path: string): Promise<string> {
    return await call("realpath", [path]) as string;
  },
  utimes(): Promise<void> {
    // Times are not part of a Workspace (root identity excludes them).
    return Promise.resolve();
  },
};

/**
 * How many steps of one loop an awk, sed or jq program may take (awk's
 * records or one loop's iterations, sed's branches on one line, jq's
 * iterations): no input this process can hold reaches it (a string is at
 * most 256 MiB), yet an endless program ends by itself: awk, the slowest
 * (about 0.5 µs a step), in about 25 seconds, measured. That bound matters
 * when the host was killed with SIGKILL: such a program begins no shell
 * statement, where this process checks that its host is alive (`hostWatch`),
 * and just-bash's only hook inside it, its coverage writer, loads the flag
 * tables of every command on the first command it sees (about 60 ms before
 * the first block could run).
 */
const PROGRAM_STEPS = 50_000_000;

/**
 * just-bash's limits on how much a script does, lifted (WS-115): the host's
 * timeout bounds a block's time (it kills this process) and the heap limit
 * its memory (WS-44), so a long loop, an awk program over a 150,000-line
 * file or a million-element array is a legitimate script until one of them
 * is reached, as in bash. Limits on depth (calls, substitutions, sourcing,
 * directory walks, parsers), on a program's own size, on descriptors and on
 * bytes stay just-bash's, or as set below; awk's, sed's and jq's steps are
 * `PROGRAM_STEPS`.
 */
const UNCOUNTED = {
  maxLoopIterations: Number.MAX_SAFE_INTEGER,
  maxCommandCount: Number.MAX_SAFE_INTEGER,
  maxWorkUnits: Number.MAX_SAFE_INTEGER,
  maxAwkIterations: PROGRAM_STEPS,
  maxSedIterations: PROGRAM_STEPS,
  maxJqIterations: PROGRAM_STEPS,
  // jq's results.
  maxQueryElements: Number.MAX_SAFE_INTEGER,
  // Arrays, brace expansions and globs, as large as memory allows. An array's
  // bound is also the count just-bash gives `String.prototype.split` (bound
  // + 1, in awk's `split()` and in `column`), which JavaScript takes modulo
  // 2^32: the safe-integer bound became 0 there, and both returned nothing
  // (WS-133). No JavaScript array holds more than 2^32 - 1 elements anyway.
  maxArrayElements: 2 ** 32 - 2,
  maxBraceExpansionResults: Number.MAX_SAFE_INTEGER,
  maxGlobOperations: Number.MAX_SAFE_INTEGER,
  // `find`, `du` and `ls -R` over a Workspace of any number of files.
  maxTraversalEntries: Number.MAX_SAFE_INTEGER,
  maxTraversalWork: Number.MAX_SAFE_INTEGER,
  // Rows and cells of CSV commands, entries of an archive.
  maxCsvRows: Number.MAX_SAFE_INTEGER,
  maxCsvCells: Number.MAX_SAFE_INTEGER,
  maxArchiveEntries: Number.MAX_SAFE_INTEGER,
} as const;

/**
 * `plugin` for every script just-bash runs for a block, except the block's
 * own (the first it transforms) when `blockNeedsIt` is false: the gated
 * transforms are told by the block's text that it cannot need them, but a
 * script the block runs from a file or a string (`bash build.sh`,
 * `source lib.sh`, `eval`) may.
 */
function forScriptsItRuns(plugin: TransformPlugin, blockNeedsIt: boolean): TransformPlugin {
  if (blockNeedsIt) return plugin;
  let block = true;
  return {
    name: plugin.name,
    transform(context) {
      if (!block) return plugin.transform(context);
      block = false;
      return { ast: context.ast };
    },
  };
}

/** Handles one host frame: a reply wakes its waiter; a run starts a block. */
function receive(message: RunMessage | ReplyMessage, payload: Uint8Array): void {
  if (message.type === "reply") {
    const waiter = pending.get(message.id);
    pending.delete(message.id);
    if (!waiter) return;
    // An earlier change's answer is stale once a later one was sent.
    if (waiter.change === changes && message.dirs) dirs = message.dirs;
    if (message.error) waiter.reject(new PosixError(message.error.code, message.error.message));
    else waiter.resolve(message.bytes ? payload : message.value);
    return;
  }
  void runBlock(message);
}

async function runBlock(message: RunMessage): Promise<void> {
  await warmed;
  resetUmask();
  token = message.token;
  dirs = message.dirs;
  output = { stdout: new OutputDecoder(), stderr: new OutputDecoder() };
  const traps = new BlockTraps();
  const bash = new Bash({
    fs: workspaceFs as unknown as IFileSystem,
    cwd: message.cwd,
    env: { HOME: "/", PATH: "/usr/bin:/bin" },
    commands: COMMANDS,
    customCommands: [
      ...OWN_COMMANDS,
      ...traps.commands,
      // Only a block whose text escapes a byte of 0x80 or more needs them (WS-143): each costs
      // every `printf` and `echo` of the block a second command context.
      ...(BYTE_ESCAPE.test(message.script) ? [printfCommand, echoCommand] : []),
    ],
    ...UNGUARDED,
    // The host's timeout (it kills this process) bounds a block, not
    // iteration counts: a long loop is a legitimate script until its time
    // is up. The heap limit bounds memory.
    executionLimits: {
      ...UNCOUNTED,
      maxExecutionTimeMs: message.timeoutMs + 1_000,
      // A Workspace file is not bounded at 64 MiB: `cat` and redirections
      // hold a whole file as one string, so strings may reach 256 MiB
      // (V8's own bound is about 512 MiB), and a block may write 1 GiB in
      // all (redirections count as output).
      maxStringLength: 256 * MIB,
      maxOutputSize: 1024 * MIB,
      maxInputBytes: 1024 * MIB,
      maxLiveBytes: 1024 * MIB,
    },
  });
  // The transforms, in order; registered with the one that makes every script just-bash parses
  // while the block runs (`eval`, `source`, `./script.sh`) pass through them too (WS-177).
  const plugins: TransformPlugin[] = [];
  const use = (plugin: TransformPlugin) => plugins.push(plugin);
  use(unsetMessagePlugin);
  const script = message.script;
  // A plugin the block's own text cannot need (its test) skips that script, the first just-bash
  // transforms, and still changes every script the block runs from a file or a string: `bash f`,
  // `source f`, `eval`, `bash -c`, `xargs`, whose text the block's does not show.
  const gated = (plugin: TransformPlugin, needed: (text: string) => boolean) =>
    use(forScriptsItRuns(plugin, needed(script)));
  // An arithmetic expression holding `${` is expanded as text first (WS-172).
  gated(arithTextPlugin, mayExpandInArithmetic);
  // `$(<FILE)` says why it read nothing (WS-182).
  gated(readSubstitutionPlugin, (text) => MAY_READ_SUBSTITUTION.test(text));
  // Every script: a command named by an expansion of several words runs its first (WS-174).
  use(commandWordsPlugin);
  // A declaration of an array gets one element per word (WS-175).
  gated(declaredArraysPlugin, mayDeclareArrays);
  // `getopts` leaves `OPTIND` set (WS-173).
  gated(getoptsPlugin, mayRunGetopts);
  // A `for` without `in` iterates over the arguments (WS-171).
  gated(forArgsPlugin, (text) => text.includes("for"));
  use(braceRangePlugin);
  // Only a block whose text names `trap` can set one its shell runs (WS-123).
  if (script.includes("trap")) use(traps.plugin);
  // A glob ending in `/` matches folders only (WS-151); before the errexit lists, which then
  // exempt the group a later part of a list becomes.
  gated(dirGlobsPlugin, (text) => MAY_GLOB_DIRS.test(text));
  // Under nounset, just-bash's `"${NAME:-}"` shortcut is widened (WS-152).
  gated(nounsetDefaultsPlugin, (text) => MAY_SET_NOUNSET.test(text));
  // Every script: a compound command sending stdout and stderr to one place keeps their order
  // (WS-166).
  use(mergedStreamsPlugin);
  // Every script: a sourced or eval'd one may redirect where the block's text does not (WS-154).
  // Before the errexit lists, which then exempt the group a part of a list becomes.
  use(redirectFailuresPlugin);
  // `"${arr[*]}"` expanded to one string joins with `IFS` (WS-169); before the assignments'
  // status, which then gives the join's own assignment status 0 too.
  gated(starJoinsPlugin, (text) => MAY_JOIN_ARRAYS.test(text));
  // Every script: an assignment alone ends with status 0 (WS-150, WS-168); before the errexit
  // lists, so it does wherever they move it, and their own assignments are left as they write them.
  use(assignmentStatusPlugin);
  // A command substitution runs with errexit off, as in bash (WS-170), unless the block asks
  // for bash's switches that make it inherit.
  if (!INHERITS_ERREXIT.test(script)) {
    gated(substitutionErrexitPlugin, (text) => MAY_SET_ERREXIT.test(text));
  }
  // bash's exemptions from errexit are the ERR trap's too (WS-184).
  const mayExempt = (text: string) => MAY_SET_ERREXIT.test(text) || MAY_TRAP_ERR.test(text);
  // A function whose status came from an exempt failure still ends the script at its call (WS-179).
  gated(functionStatusPlugin, mayExempt);
  // bash's exemptions from errexit in and-or lists (WS-149).
  gated(errexitLists, mayExempt);
  // A background job gets bash's statuses, `$!` and `wait` (WS-183); after the errexit lists,
  // which would exempt the inside of the subshell a job becomes.
  gated(backgroundPlugin, (text) => MAY_RUN_JOBS.test(text));
  // A block that may turn xtrace on streams each statement's trace before its output (WS-167).
  use(streamingPlugin(MAY_SET_XTRACE.test(message.script)));
  // A script just-bash parses itself has its status checked at the command that ran it (WS-179).
  const parsed = parsedScriptsPlugin([...plugins, parsedStatusPlugin]);
  for (const plugin of [...plugins, parsed]) {
    bash.registerTransformPlugin(plugin);
  }
  try {
    const result = await bash.exec(message.script, { signal: hostWatch });
    const trapped = await traps.end(bash, result, result.exitCode, hostWatch);
    finish(trapped.exitCode, result.stdout + trapped.stdout, result.stderr + trapped.stderr);
  } catch (error) {
    if (error instanceof PosixError) {
      // just-bash lets a refused redirection target (`> missing/dir/f`)
      // escape `exec`: that is the command failing, as in bash (exit 1), but
      // it ends the block there (the output before it has streamed).
      const failed = error instanceof RedirectionRefused
        ? `${error.message}\n`
        : `bash: ${error.message}\n`;
      const trapped = await traps.end(bash, undefined, 1, hostWatch).catch(() => undefined);
      if (trapped === undefined) return finish(1, "", failed);
      return finish(trapped.exitCode, trapped.stdout, failed + trapped.stderr);
    }
    send({
      type: "crash",
      token: message.token,
      message: error instanceof Error ? `${error.name}: ${error.message}` : "unknown error",
    });
  }
}

/** Ends a block: what is still buffered streams, then output no wrapper caught, then the exit code. */
function finish(exitCode: number, stdout: string, stderr: string): void {
  post("stdout", output.stdout.end() + stdout);
  post("stderr", output.stderr.end() + stderr);
  send({ type: "done", token, exitCode });
}

const reader = new FrameReader({ maxHeader: 2 ** 31, maxPayload: 2 ** 32 - 1 });
for await (const chunk of Deno.stdin.readable) {
  for (const frame of reader.push(chunk)) {
    receive(frame.header as RunMessage | ReplyMessage, frame.payload);
  }
}
// The host closed stdin (it ended, or it is gone): nothing is left to serve.
Deno.exit(0);
