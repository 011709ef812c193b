/**
 * The warm Worker Shell effect, and where its time goes.
 *
 * - effect: an `sh` block `echo x > f` through the executor's live effect
 *   path (see `_workspace-effect.ts`): `WorkerShell.run` on a warm Worker
 *   inside the held transaction, the secret gate, `publishRoot`,
 *   `RunStore.append`, `COMMIT` (`synchronous=FULL`, a temporary file).
 * - its parts, interleaved with it: a `<File>` write effect on the same run
 *   (the effect path without the shell); a bare SQLite commit (its fsync);
 *   the block on the run's Workspace inside a held transaction that is then
 *   rolled back (the effect without gate, publication, append and commit);
 *   the block alone on an in-memory Workspace (no effect transaction); a
 *   block that makes no filesystem request (`:`); one frame round trip to a
 *   bare permission-less interpreter process (an echo); and just-bash in this thread on
 *   its own in-memory filesystem (`new Bash`, then `exec`), with its defense-in-depth
 *   off as Worker Shell runs it (WS-117) and with its default (on).

 * `WorkerShell` is not exported by `@xmd/workflow/deno` (the local host
 * constructs it), so it is imported from its module.
 *
 * Invariant: every timed block is checked to have exited 0 (and the effect
 * to have committed and written `f`), so a failing block fails the benchmark
 * instead of timing an error path.
 *
 * @module
 */
import { type Description, sha256Hex, type ShellRequest, type ShellResult } from "@xmd/core";
import { type SqlSeam } from "@xmd/workflow";
import { Workspace } from "@xmd/workflow/internal";
import { NodeSqliteSeam } from "@xmd/workflow/deno/internal";
// The same specifier as @xmd/workflow's import map (bench/ is no workspace member), so the frozen
// lock resolves it to the very just-bash the Worker runs.
// deno-lint-ignore no-import-prefix
import { Bash } from "npm:just-bash@3.4.2";
import { DatabaseSync } from "node:sqlite";
import { WorkerShell } from "../packages/workflow/src/deno/worker-shell.ts";
import {
  DEFAULT_HEAP_LIMIT_MIB,
  ShellProcess,
} from "../packages/workflow/src/deno/worker-shell-process.ts";
import { standInInterpreter } from "../packages/workflow/src/deno/_test-interpreters.ts";
import { openEffectRun } from "./_workspace-effect.ts";

/** just-bash in this thread as Worker Shell's interpreter runs it: defense-in-depth off (WS-117). */
const UNGUARDED_BASH = {
  cwd: "/",
  env: { HOME: "/", PATH: "/usr/bin:/bin" },
  defenseInDepth: false,
} as const;

/** The measured block. */
export const SCRIPT = "echo x > f";

/** Commands in {@linkcode LOOP}. */
export const LOOP_COMMANDS = 50;

/** A block of many commands: what a command costs once the block runs. */
export const LOOP = Array.from({ length: LOOP_COMMANDS }, () => "basename /a/b >/dev/null").join(
  "\n",
);

/**
 * A Workspace that counts what Worker Shell asks of it: each request from the
 * Worker is served in exactly one `transaction` of its seam (one message
 * round trip), and its operation is the outermost Workspace call inside it.
 */
class CountingWorkspace extends Workspace {
  messages = 0;
  readonly operations = new Map<string, number>();
  depth = 0;

  constructor(seam: SqlSeam) {
    const counting: SqlSeam = {
      exec: (sql, ...params) => seam.exec(sql, ...params),
      transaction: (fn, label) => {
        this.messages++;
        return seam.transaction(fn, label);
      },
    };
    super(counting);
  }

  reset(): void {
    this.messages = 0;
    this.operations.clear();
  }
}
const SERVED = [
  "readFile",
  "writeFile",
  "exists",
  "stat",
  "lstat",
  "mkdir",
  "readdir",
  "unlink",
  "rmdir",
  "rename",
  "symlink",
  "realpath",
  "readlink",
  "link",
  "chmod",
] as const;
for (const name of SERVED) {
  const original = Workspace.prototype[name] as (...args: unknown[]) => unknown;
  Object.defineProperty(CountingWorkspace.prototype, name, {
    value: function (this: CountingWorkspace, ...args: unknown[]) {
      if (this.depth === 0) this.operations.set(name, (this.operations.get(name) ?? 0) + 1);
      this.depth++;
      try {
        return original.apply(this, args);
      } finally {
        this.depth--;
      }
    },
  });
}

/** The Worker Shell effect and its parts. */
export interface WorkerShellFixture extends AsyncDisposable {
  /** The whole effect, committed. */
  effect(): Promise<void>;
  /** `WorkerShell.run` of the block on the run's Workspace inside a held transaction, rolled back. */
  runHeld(): Promise<void>;
  /** `WorkerShell.run` of the block alone, in-memory Workspace. */
  runAlone(): Promise<void>;
  /** `WorkerShell.run` of `:` (no filesystem request), in-memory Workspace. */
  runNoFs(): Promise<void>;
  /** `WorkerShell.run` of {@linkcode LOOP}, in-memory Workspace. */
  runLoop(): Promise<void>;
  /** `new Bash()` + `exec(LOOP)` in this thread on just-bash's in-memory filesystem, unguarded. */
  bashLoop(): Promise<void>;
  /** One frame round trip to a bare permission-less interpreter process that echoes it. */
  roundTrip(): Promise<void>;
  /** `new Bash()` in this thread (default options). */
  newBash(): void;
  /** `new Bash()` + `exec(SCRIPT)` in this thread on just-bash's in-memory filesystem, unguarded. */
  bashExec(): Promise<void>;
  /** The same with just-bash's default defense-in-depth. */
  bashExecDefense(): Promise<void>;
  /** One `<File>` write effect (2 bytes) on the same run: the effect path without the shell. */
  fileEffect(): Promise<void>;
  /** The peer: `BEGIN IMMEDIATE`, one 2-byte INSERT, `COMMIT` on a bare database. */
  bareCommit(): void;
  /** The requests (message round trips) one run of the block makes, and their operations. */
  requests: { messages: number; operations: Record<string, number> };
  /** Throws unless every effect committed and the block's file is in the run's Workspace. */
  verify(): void;
}

function request(script: string): ShellRequest {
  return {
    lang: "sh",
    script,
    cwd: ".",
    timeoutMs: 30_000,
    onStdout: () => {},
    onStderr: () => {},
    signal: new AbortController().signal,
  };
}

function succeeded(result: ShellResult, what: string): void {
  if (result.exitCode !== 0) {
    throw new Error(`Cannot benchmark ${what}: exit ${result.exitCode}: ${result.stderr}`);
  }
}

/** just-bash reports on the console what its defense-in-depth cannot patch; keep it quiet. */
function quietly<T>(fn: () => T): T {
  const saved = { warn: console.warn, error: console.error, log: console.log };
  const restore = () => Object.assign(console, saved);
  console.warn = console.error = console.log = () => {};
  let result: T;
  try {
    result = fn();
  } catch (error) {
    restore();
    throw error;
  }
  if (result instanceof Promise) return result.finally(restore) as T;
  restore();
  return result;
}

/** Opens the run in `dir` and the in-memory shells; starts and warms every Worker. */
export async function openWorkerShellFixture(dir: string): Promise<WorkerShellFixture> {
  const run = await openEffectRun(`${dir}/shell.sqlite`);
  const shell = new WorkerShell(run.workspace);
  const shellProvider = run.wrapShell(shell);
  const memorySeam = new NodeSqliteSeam(new DatabaseSync(":memory:"), "the bench Workspace");
  memorySeam.transaction(() => Workspace.initialize(memorySeam));
  const memory = new CountingWorkspace(memorySeam);
  const memoryShell = new WorkerShell(memory);
  const bare = new DatabaseSync(`${dir}/bare-shell.sqlite`);
  bare.exec("PRAGMA journal_mode = WAL");
  bare.exec("PRAGMA synchronous = FULL");
  bare.exec("CREATE TABLE item (id INTEGER PRIMARY KEY, body BLOB NOT NULL) STRICT");
  const insert = bare.prepare("INSERT INTO item (body) VALUES (?)");
  const echoModule = await standInInterpreter(
    "onFrame((header, payload) => send(header, payload));",
  );
  let pendingEcho: (() => void) | undefined;
  const echo = new ShellProcess(echoModule.url, DEFAULT_HEAP_LIMIT_MIB, {
    onFrame: () => pendingEcho?.(),
    onExit: () => {},
  });

  const description: Description = {
    type: "exec",
    name: "exec bench.md:5:1",
    lang: "sh",
    script: SCRIPT,
  };
  const fileDescription: Description = {
    type: "file.write",
    name: "File bench.md:3:1",
    path: "g",
    sha256: sha256Hex("x\n"),
  };
  const encoder = new TextEncoder();
  const fixture: WorkerShellFixture = {
    effect: async () => {
      const settled = await run.journal.effect("root", description, async () => {
        const result = await shellProvider.run(request(SCRIPT));
        succeeded(result, "the Worker Shell effect");
        return {
          status: "ok",
          value: { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr },
        };
      });
      if (settled.replayed) throw new Error("Cannot benchmark a live effect: it was replayed");
    },
    fileEffect: async () => {
      const settled = await run.journal.effect("root", fileDescription, async () => {
        await run.fs.writeText("g", "x\n");
        return { status: "ok", value: null };
      });
      if (settled.replayed) throw new Error("Cannot benchmark a live effect: it was replayed");
    },
    bareCommit: () => {
      bare.exec("BEGIN IMMEDIATE");
      insert.run(encoder.encode("x\n"));
      bare.exec("COMMIT");
    },
    runHeld: async () => {
      const held = run.store.sql.hold!("workspace-effect");
      try {
        succeeded(await shell.run(request(SCRIPT)), SCRIPT);
      } finally {
        held.rollback();
      }
    },
    runAlone: async () => succeeded(await memoryShell.run(request(SCRIPT)), SCRIPT),
    runNoFs: async () => succeeded(await memoryShell.run(request(":")), ":"),
    runLoop: async () => succeeded(await memoryShell.run(request(LOOP)), "the loop"),
    bashLoop: () =>
      quietly(async () => {
        const bash = new Bash({ ...UNGUARDED_BASH });
        succeeded({ ...await bash.exec(LOOP), timedOut: false }, "just-bash");
      }),
    roundTrip: () =>
      new Promise<void>((resolve) => {
        pendingEcho = resolve;
        echo.send({ type: "ping", id: 1 });
      }),
    newBash: () => {
      quietly(() => new Bash({ cwd: "/", env: { HOME: "/", PATH: "/usr/bin:/bin" } }));
    },
    bashExec: () =>
      quietly(async () => {
        const bash = new Bash({ ...UNGUARDED_BASH });
        succeeded({ ...await bash.exec(SCRIPT), timedOut: false }, "just-bash");
      }),
    bashExecDefense: () =>
      quietly(async () => {
        const bash = new Bash({ cwd: "/", env: { HOME: "/", PATH: "/usr/bin:/bin" } });
        succeeded({ ...await bash.exec(SCRIPT), timedOut: false }, "just-bash");
      }),
    requests: { messages: 0, operations: {} },
    verify: () => {
      run.verify();
      const text = new TextDecoder().decode(run.workspace.readFile("/f"));
      if (text !== "x\n") throw new Error("Cannot trust the Worker Shell bench: /f is not x");
    },
    [Symbol.asyncDispose]: async () => {
      echo.kill();
      await Promise.all([
        shell[Symbol.asyncDispose](),
        memoryShell[Symbol.asyncDispose](),
        echo.ended,
      ]);
      await echoModule[Symbol.asyncDispose]();
      bare.close();
      run[Symbol.dispose]();
      memorySeam[Symbol.dispose]();
    },
  };
  // Warm every interpreter (module loading is the cold start, not measured here).
  shell.warm();
  await fixture.effect();
  await fixture.fileEffect();
  await fixture.runAlone();
  // The block's requests only: `run` checks its working directory before it posts the block.
  const counted = memoryShell.run(request(SCRIPT));
  memory.reset();
  succeeded(await counted, SCRIPT);
  fixture.requests = {
    messages: memory.messages,
    operations: Object.fromEntries(memory.operations),
  };
  return fixture;
}
