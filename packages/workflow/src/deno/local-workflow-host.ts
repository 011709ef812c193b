/**
 * The local workflow host: one SQLite database per run under the runs folder,
 * named by the SHA-256 of the run id, with an executor lock sidecar. There is
 * no registry file: `list` reads the folder.
 *
 * Invariants:
 * - The executor lock is taken before the database is opened or created, and
 *   held until the execution's last transition is committed.
 * - A `running` run found with its lock free is stale: it is closed as
 *   `interrupted` (stop reason `crashed`) before anything else happens.
 * - Inspection (`inspect`, `history`, `list`, `diff`, `export`) and `answer`
 *   take no lock and run nothing; `answer` appends no event and changes no
 *   status; `export` writes only into its (empty) target directory.
 * - Everything is read, recognized and checked over a read-only connection
 *   (one committed state) before anything is written; only then, and only
 *   when there is something to write, is a writing connection opened. So
 *   inspection never checkpoints or rewrites a database, and every refusal
 *   leaves its files (main file and write-ahead log) byte-for-byte as they
 *   were.
 *
 * @module
 */
import type { JsonValue, Program } from "@xmd/core";
import { canonicalJson, sha256Hex } from "@xmd/core/protocol";
import {
  answerProblems,
  MAX_JSON_DEPTH,
  nestsDeeperThan,
  observedShell,
  propsEvent,
} from "@xmd/core/internal";
import { basenameOf, joinPath } from "@xmd/core/deno/internal";
import {
  AnswerRefusedError,
  RunDatabaseAccessError,
  RunNotFoundError,
  RunStateError,
  WorkerShellPermissionError,
  WorkflowDatabaseCorruptError,
  WorkflowDatabaseFormatError,
  WorkflowSchemaVersionError,
} from "../contracts/workflow-errors.ts";
import type { RunRecord } from "../contracts/run-record.ts";
import type {
  ExecutionIo,
  ExecutionReport,
  ExportOptions,
  ExportReport,
  HistoryEvent,
  HistorySink,
  RunDiff,
  RunHistory,
  RunInspection,
  RunListing,
  StartRequest,
  WorkflowHost,
} from "../contracts/workflow-host.ts";
import { continuation } from "../execution/continuation.ts";
import { executionReport } from "../execution/execution-report.ts";
import { checkRunId } from "../execution/run-id.ts";
import { newRun } from "../execution/new-run.ts";
import { checkStartConflict } from "../execution/start-conflict.ts";
import { gateStart } from "../execution/start-gate.ts";
import { checkWorkflowSupport, hasExecBlocks } from "../execution/workflow-support.ts";
import { checkCancellable, EVENT_PAGE, RunStore } from "../store/run-store.ts";
import type { SqlSeam } from "../sql/sql-seam.ts";
import { liveHardLinks } from "../workspace/hard-links.ts";
import { verifyRoot } from "../workspace/verify-root.ts";
import { diffRoots, walkRoot } from "../workspace/walk-root.ts";
import { ExecutorLock } from "./executor-lock.ts";
import type { WorkerShellOptions } from "./worker-shell.ts";
import type { PrestartedInterpreter } from "./worker-shell-prestart.ts";
import { openRunDatabase, readConsistently, readRunDatabase } from "./run-database.ts";
import { createRunsFolder, runsFolderRefusal } from "./runs-folder.ts";

/** Whether `list` reports the file `error` refused as unreadable, instead of failing. */
function isRecognitionError(error: unknown): error is Error {
  return error instanceof RunDatabaseAccessError || error instanceof WorkflowDatabaseFormatError ||
    error instanceof WorkflowSchemaVersionError || error instanceof WorkflowDatabaseCorruptError;
}

let runningModules: Promise<typeof import("./host-running.ts")> | undefined;

/**
 * The modules that run documents and check runs before a change, loaded on
 * first use, by one `import()` however many callers wait for it: Deno 2.9
 * can panic on a second dynamic import of a graph it is still registering.
 */
const running = () => runningModules ??= import("./host-running.ts");

/** What a local start may be given besides its request. */
export interface LocalStartOptions {
  /**
   * Worker Shell's interpreter, started ahead by
   * {@linkcode LocalWorkflowHost.prestartInterpreter} while the caller still
   * reads and checks the document. The start owns it: its first block runs in
   * it, and a start that returns without running one (refused, or a document
   * without exec blocks) kills it and waits for its end (WF-170).
   */
  prestarted?: PrestartedInterpreter;
}

/** How a local host runs documents. */
export interface LocalWorkflowHostOptions {
  /** How Worker Shell runs exec blocks (its interpreter's heap limit). */
  shell?: WorkerShellOptions;
}

/** A `WorkflowHost` over a local runs folder. */
export class LocalWorkflowHost implements WorkflowHost {
  readonly #runs: string;
  readonly #shell: WorkerShellOptions;

  /** `runs` is an absolute folder; it is created on first use. */
  constructor(runs: string, options: LocalWorkflowHostOptions = {}) {
    this.#runs = runs;
    this.#shell = options.shell ?? {};
  }

  /** The database path of run `id`. */
  pathOf(id: string): string {
    return joinPath(this.#runs, `${sha256Hex(id)}.sqlite`);
  }

  /**
   * Starts Worker Shell's interpreter for a start about to follow, before
   * its document is even loaded: loading just-bash costs its process about
   * 100 ms of CPU, which then overlaps the caller's reading and checking of
   * the document. Give it to {@linkcode LocalWorkflowHost.start}, which runs
   * the first block in it or kills it; a caller that does not start must
   * dispose of it (killed, its end awaited). `undefined` when this process
   * may not start the interpreter (the start refuses that itself).
   */
  async prestartInterpreter(): Promise<PrestartedInterpreter | undefined> {
    return (await import("./worker-shell-prestart.ts")).prestartInterpreter(this.#shell);
  }

  async start(
    request: StartRequest,
    io: ExecutionIo,
    options: LocalStartOptions = {},
  ): Promise<ExecutionReport> {
    // This start's to run blocks in, or to kill and wait for however it returns.
    await using early = options.prestarted;
    const id = request.id ?? crypto.randomUUID().replaceAll("-", "").slice(0, 12);
    checkRunId(id);
    // A library caller gets the same refusal as the CLI: a block no Worker
    // Shell can run is refused before anything exists.
    checkWorkflowSupport(request.program);
    const {
      createSecretGate,
      definitionHash,
      disabledSecretGate,
      interpreterStartProblem,
      nativeSha256Hex,
      PrestartedInterpreter,
    } = await running();
    const executes = hasExecBlocks(request.program);
    // Started for a document that has no block to run after all: ended now, not after the run.
    if (!executes) await early?.[Symbol.asyncDispose]();
    const shellProblem = executes ? interpreterStartProblem() : null;
    // Worker Shell's interpreter loads while the start checks and creates the run; killed (and
    // waited for) when the start returns without a Worker Shell having adopted it.
    await using own = executes && shellProblem === null && early === undefined
      ? new PrestartedInterpreter(this.#shell)
      : undefined;
    const prestarted = executes ? early ?? own : undefined;
    // Before anything is created: a refused start leaves no file, or an existing run as it was.
    const gate = io.secretDetection === false ? disabledSecretGate : createSecretGate();
    await gateStart(gate, {
      id,
      program: request.program,
      target: request.target,
      props: request.props,
    });
    // A process that may not start the interpreter is refused before a run
    // exists, rather than leaving one stopped at its first block.
    if (shellProblem !== null) throw new WorkerShellPermissionError(shellProblem);
    await createRunsFolder(this.#runs);
    const path = this.pathOf(id);
    const where = `run "${id}"`;
    using lock = await this.#lock(path, id);
    // The sources are hashed natively (the JavaScript SHA-256 took tens of ms for a large one).
    const definition = definitionHash(request.program, request.target, nativeSha256Hex);
    const propsHash = sha256Hex(canonicalJson(request.props));
    // An existing run is recognized and compared before anything is written.
    let existing = false;
    const reading = readRunDatabase(path, where, { recover: true });
    if (reading) {
      using _reading = reading;
      const store = new RunStore(reading, where);
      existing = await readConsistently(reading, () => {
        if (!store.hasRun()) return false;
        checkFileName(store, path, where);
        checkStartConflict(store.record(), {
          definitionHash: definition,
          target: request.target,
          propsHash,
        });
        refuseSecretStop(store, io);
        return true;
      });
    }
    if (existing) {
      io.onRun(id);
      return await this.#continue(path, id, io, lock, prestarted);
    }
    // No run yet (a new id, or a start that stopped before creating it).
    const root = request.program.root.file;
    // The run's first event, the props digest the engine journals first, is created with the
    // run (WF-182): one commit fewer, and the engine replays it. It passes the gate as every
    // event does, before anything is created.
    const first = propsEvent(root, propsHash);
    await gate.check(JSON.stringify(first), `journal event "${first.description.name}"`);
    const opened = await openRunDatabase(path, where, { create: true });
    using seam = opened!.seam;
    const store = new RunStore(seam, where);
    const execution = seam.transaction(() => {
      const execution = store.create(newRun(id, request, definition, propsHash), nativeSha256Hex);
      store.append(execution, first);
      return execution;
    }, "create");
    io.onRun(id);
    return await this.#execute(store, execution, io, lock, request.program, prestarted);
  }

  async resume(id: string, io: ExecutionIo): Promise<ExecutionReport> {
    checkRunId(id);
    const path = this.pathOf(id);
    await this.#requireExists(path, id);
    using lock = await this.#lock(path, id);
    await this.#read(path, id, (store) => refuseSecretStop(store, io), { recover: true });
    io.onRun(id);
    return await this.#continue(path, id, io, lock);
  }

  async answer(
    id: string,
    suspensionId: string,
    value: JsonValue,
    secretDetection: boolean,
  ): Promise<void> {
    checkRunId(id);
    const path = this.pathOf(id);
    await this.#requireExists(path, id);
    const { createSecretGate, disabledSecretGate, nativeSha256Hex, verifyRun } = await running();
    await this.#read(path, id, async (store) => {
      await verifyRun(store, { workspace: true, sha256: nativeSha256Hex });
      const pending = store.pendingSuspension();
      if (!pending) {
        throw new RunStateError(
          `Cannot answer run "${id}": it is ${store.record().status}, not waiting for an answer`,
        );
      }
      if (pending.suspensionId !== suspensionId) {
        throw new RunStateError(
          `Cannot answer "${suspensionId}": run "${id}" waits for ${pending.suspensionId}`,
        );
      }
      if (pending.answered) {
        throw new RunStateError(
          `Cannot answer "${suspensionId}" again: an answer is already waiting`,
          "answer-waiting",
        );
      }
      if (nestsDeeperThan(value)) {
        throw new AnswerRefusedError(
          `Cannot accept the answer to ${suspensionId}: it nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`,
        );
      }
      const problems = await answerProblems(pending.schema as JsonValue, value);
      if (problems.length > 0) {
        throw new AnswerRefusedError(
          `Cannot accept the answer to ${suspensionId}: it does not match the question's schema: ${
            problems.join("; ")
          }`,
        );
      }
      const gate = secretDetection ? createSecretGate() : disabledSecretGate;
      await gate.check(JSON.stringify(value), `the answer to ${suspensionId}`);
    }, { recover: true });
    using seam = await this.#write(path, id);
    // Checked again in the write transaction: another answer may have won meanwhile.
    new RunStore(seam, `run "${id}"`).storeAnswer(suspensionId, value);
  }

  async inspect(id: string): Promise<RunInspection> {
    checkRunId(id);
    const path = this.pathOf(id);
    await this.#requireExists(path, id);
    const read = () => this.#read(path, id, inspectStore);
    return await withExecutor(path, await read(), read);
  }

  async history(id: string): Promise<RunHistory> {
    checkRunId(id);
    const path = this.pathOf(id);
    await this.#requireExists(path, id);
    return await this.#read(
      path,
      id,
      (store) => ({ ...inspectStore(store), events: store.events() }),
    );
  }

  async streamHistory(id: string, sink: HistorySink): Promise<void> {
    checkRunId(id);
    const path = this.pathOf(id);
    await this.#requireExists(path, id);
    await this.#read(path, id, (store) => {
      sink.inspection(inspectStore(store));
      let page: HistoryEvent[] = [];
      for (const { id, at, root, event } of store.eachEvent()) {
        page.push({ id, at, root, event });
        if (page.length === EVENT_PAGE) {
          sink.events(page);
          page = [];
        }
      }
      if (page.length > 0) sink.events(page);
    });
  }

  async export(
    id: string,
    at: number | null,
    directory: string,
    options: ExportOptions = {},
  ): Promise<ExportReport> {
    checkRunId(id);
    const path = this.pathOf(id);
    await this.#requireExists(path, id);
    const where = `run "${id}"`;
    const { checkExportTarget, exportDirectory, nativeSha256Hex } = await running();
    return await this.#read(path, id, async (store) => {
      const seam = store.sql;
      const record = store.record();
      const event = at ?? (record.eventCount > 0 ? record.eventCount : null);
      const root = at === null ? record.root : rootAfter(store, id, at);
      await checkExportTarget(directory);
      // Everything is read and checked before the first byte is written: a damaged root writes nothing.
      verifyRoot(seam, root, where, nativeSha256Hex);
      const counts = await exportDirectory(
        walkRoot(seam, root, where, nativeSha256Hex),
        liveHardLinks(seam, root),
        directory,
        options,
      );
      return { id, event, root, ...counts };
    });
  }

  async diff(id: string, from: number, to: number): Promise<RunDiff> {
    checkRunId(id);
    const path = this.pathOf(id);
    await this.#requireExists(path, id);
    const where = `run "${id}"`;
    return await this.#read(path, id, (store) => {
      const a = rootAfter(store, id, from);
      const b = rootAfter(store, id, to);
      return {
        from: { event: from, root: a },
        to: { event: to, root: b },
        ...diffRoots(store.sql, a, b, where),
      };
    });
  }

  async list(): Promise<RunListing> {
    const listing: RunListing = { runs: [], unreadable: [] };
    let entries: Deno.DirEntry[];
    try {
      entries = await Array.fromAsync(Deno.readDir(this.#runs));
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return listing;
      throw await runsFolderRefusal(this.#runs, error, "cannot read it");
    }
    for (const entry of entries) {
      if (!entry.isFile || !/^[0-9a-f]{64}\.sqlite$/.test(entry.name)) continue;
      const path = joinPath(this.#runs, entry.name);
      const where = `run file ${entry.name}`;
      const read = async () => {
        const seam = readRunDatabase(path, where);
        if (!seam) return null;
        using _seam = seam;
        const store = new RunStore(seam, where);
        return await readConsistently(seam, () => {
          if (!store.hasRun()) return null;
          return inspectStore(store, checkFileName(store, path, where));
        });
      };
      try {
        const run = await read();
        if (run) listing.runs.push(await withExecutor(path, run, read));
      } catch (error) {
        // One damaged or foreign file does not hide the other runs; it is reported, untouched.
        if (!isRecognitionError(error)) throw error;
        listing.unreadable.push({ file: entry.name, reason: error.message });
      }
    }
    listing.runs.sort((a, b) => b.record.createdAt - a.record.createdAt);
    return listing;
  }

  async cancel(id: string): Promise<void> {
    checkRunId(id);
    const path = this.pathOf(id);
    await this.#requireExists(path, id);
    using _lock = await this.#lock(path, id);
    const { nativeSha256Hex, verifyRun } = await running();
    await this.#read(path, id, async (store) => {
      await verifyRun(store, { workspace: true, sha256: nativeSha256Hex });
      // A `running` run is stale here (this process holds the lock): it is interrupted first.
      const { status } = store.record();
      if (status !== "running") checkCancellable(id, status);
    }, { recover: true });
    using seam = await this.#write(path, id);
    const store = new RunStore(seam, `run "${id}"`);
    store.recoverStale();
    store.cancel();
  }

  async delete(id: string): Promise<void> {
    checkRunId(id);
    const path = this.pathOf(id);
    await this.#requireExists(path, id);
    using _lock = await this.#lock(path, id);
    // Recognize it first: a foreign file under a run's name is not deleted.
    await this.#read(path, id, () => {}, { run: false, recover: true });
    for (const suffix of ["-wal", "-shm", "-journal", ""]) {
      await Deno.remove(`${path}${suffix}`).catch((error) => {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
      });
    }
    await Deno.remove(`${path}.lock`).catch(() => {});
  }

  /**
   * Continues a run under `lock`: verifies and decides over a read-only
   * connection (a finished run is replayed there, a run waiting for an
   * answer is reported there), and only for a new execution opens the
   * database for writing.
   */
  async #continue(
    path: string,
    id: string,
    io: ExecutionIo,
    lock: ExecutorLock,
    given?: PrestartedInterpreter,
  ): Promise<ExecutionReport> {
    const {
      createSecretGate,
      disabledSecretGate,
      executeRun,
      interpreterStartProblem,
      loadRetainedProgram,
      nativeSha256Hex,
      PrestartedInterpreter,
      verifyRun,
    } = await running();
    // The interpreter this continuation starts early, if any (a start gives its own): this
    // method's to kill and wait for unless the execution's Worker Shell adopts it.
    let prestarted: PrestartedInterpreter | undefined;
    try {
      let program: Program | undefined;
      const finished = await this.#read(path, id, async (store) => {
        // A damaged run is refused here, unchanged: found by the executor, it
        // would be run through or settled failed, an execution added per attempt.
        const found = store.record().status;
        const continues = found === "running" || found === "suspended" || found === "interrupted";
        await verifyRun(store, { workspace: continues, sha256: nativeSha256Hex });
        const next = continuation(store);
        if (next.kind === "replay") {
          const result = await executeRun({
            store,
            execution: null,
            gate: disabledSecretGate,
            stdout: io.stdout,
            stderr: io.stderr,
            signal: io.signal,
          });
          return executionReport(store, result.outcome);
        }
        if (next.kind === "report") return executionReport(store);
        // An execution follows: its program, verified above, is loaded once, here, so the
        // interpreter loads while the answer is checked and the journal is replayed.
        program = await loadRetainedProgram(store);
        if (given === undefined && hasExecBlocks(program) && interpreterStartProblem() === null) {
          prestarted ??= new PrestartedInterpreter(this.#shell);
        }
        if (next.answer && io.secretDetection !== false) {
          // An answer accepted with --no-secret-detection would otherwise be
          // refused by the journal's gate mid-execution and fail the run for
          // good; refusing here leaves it suspended, to resume with the flag.
          await createSecretGate().check(
            JSON.stringify(next.answer.value),
            `the answer to ${next.answer.suspensionId}`,
          );
        }
        return undefined;
      }, { recover: true });
      if (finished) return finished;
      using seam = await this.#write(path, id);
      const store = new RunStore(seam, `run "${id}"`);
      store.recoverStale();
      const execution = store.beginExecution(["suspended", "interrupted"]);
      return await this.#execute(store, execution, io, lock, program, given ?? prestarted);
    } finally {
      await prestarted?.[Symbol.asyncDispose]();
    }
  }

  async #execute(
    store: RunStore,
    execution: number,
    io: ExecutionIo,
    lock: ExecutorLock,
    program?: Program,
    prestarted?: PrestartedInterpreter,
  ): Promise<ExecutionReport> {
    if (!lock.held) throw new RunStateError("The executor lock was released; this is a bug in xmd");
    const { createSecretGate, disabledSecretGate, executeRun, nativeSha256Hex, WorkerShell } =
      await running();
    const result = await executeRun({
      store,
      execution,
      ...(program === undefined ? {} : { program }),
      shell: (workspace) => {
        const shell = new WorkerShell(workspace, this.#shell, prestarted);
        return io.onExec ? observedShell(shell, (position) => io.onExec!(position)) : shell;
      },
      sha256: nativeSha256Hex,
      gate: io.secretDetection === false ? disabledSecretGate : createSecretGate(),
      stdout: io.stdout,
      stderr: io.stderr,
      signal: io.signal,
    });
    return executionReport(store, result.outcome);
  }

  async #requireExists(path: string, id: string): Promise<void> {
    try {
      if ((await Deno.stat(path)).size > 0) return;
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) {
        throw await runsFolderRefusal(this.#runs, error, "cannot read it");
      }
    }
    throw new RunNotFoundError(`Cannot find run "${id}": no such run in ${this.#runs}`);
  }

  /** Takes run `id`'s executor lock; a runs folder that cannot hold the lock file is refused. */
  async #lock(path: string, id: string): Promise<ExecutorLock> {
    try {
      return await ExecutorLock.acquire(`${path}.lock`, id);
    } catch (error) {
      throw await runsFolderRefusal(this.#runs, error, "cannot create a file in it");
    }
  }

  /**
   * Reads run `id` over a read-only connection, in one read transaction.
   * Unless `run` is false, a database whose run was never created is not
   * found. `recover` lets a command that writes next have SQLite roll back a
   * write that stopped half-way (see `readRunDatabase`).
   */
  async #read<T>(
    path: string,
    id: string,
    read: (store: RunStore) => T | Promise<T>,
    { run = true, recover = false } = {},
  ): Promise<T> {
    const where = `run "${id}"`;
    const seam = readRunDatabase(path, where, { recover });
    if (!seam) throw new RunNotFoundError(`Cannot find run "${id}": no such run in ${this.#runs}`);
    using _seam = seam;
    const store = new RunStore(seam, where);
    return await readConsistently(seam, () => {
      if (run && !store.hasRun()) {
        // `start` stopped between initializing the database and creating the run.
        throw new RunNotFoundError(
          `Cannot find run "${id}": its start did not finish`,
          "unfinished-start",
        );
      }
      if (run) checkFileName(store, path, where);
      return read(store);
    });
  }

  /** Opens run `id`'s database for writing (everything was read and checked before). */
  async #write(path: string, id: string): Promise<SqlSeam & Disposable> {
    const opened = await openRunDatabase(path, `run "${id}"`, { create: false });
    if (!opened) {
      throw new RunNotFoundError(`Cannot find run "${id}": no such run in ${this.#runs}`);
    }
    return opened.seam;
  }
}

/**
 * Refuses, unchanged, to continue a run the secret gate stopped unless the gate
 * is off: its retained document and inputs would produce the refused secret
 * again, so running it only to be refused would add an execution and nothing else.
 */
function refuseSecretStop(store: RunStore, io: ExecutionIo): void {
  const { id, status, stopReason } = store.record();
  if (
    status === "interrupted" && stopReason?.kind === "host" &&
    stopReason.code === "secret_detected" && io.secretDetection !== false
  ) {
    throw new RunStateError(
      `Cannot resume run "${id}" with the secret gate on: it stopped because the gate refused what an effect produced, and that effect would run again the same way. Nothing of it was kept`,
      "secret-stop",
    );
  }
}

/** The root after event `event`, or a refusal naming the events there are. */
function rootAfter(store: RunStore, id: string, event: number): string {
  const root = store.rootAfter(event);
  if (root !== undefined) return root;
  const count = store.record().eventCount;
  throw new RunStateError(
    `Cannot find event ${event} of run "${id}": ${
      count === 0 ? "it has no events yet" : `its events are 1 to ${count}`
    }`,
    "no-such-event",
  );
}

/**
 * Refuses a database whose run is not the one its file is named for: a
 * copied or renamed file would otherwise run under a second lock. Returns
 * the run record it read, for a caller that reads it next in the same read.
 */
function checkFileName(store: RunStore, path: string, where: string): RunRecord {
  const record = store.record();
  if (basenameOf(path) === `${sha256Hex(record.id)}.sqlite`) return record;
  throw new WorkflowDatabaseCorruptError(
    `Cannot open ${where}: its file holds another run than the one it is named for (a copied or renamed file). It is left as it is`,
  );
}

/** What `inspect` and `list` report of a run; `record` is `store.record()` if the caller read it. */
/**
 * `inspection` of the run at `path` with whether a process executes it, when
 * it is `running` and the executor lock tells (WF-28). A run found without
 * an executor is read again: one settled between the read and the probe is
 * reported settled, not stale.
 */
async function withExecutor<T extends RunInspection | null>(
  path: string,
  inspection: RunInspection,
  read: () => Promise<T>,
): Promise<RunInspection> {
  if (inspection.record.status !== "running") return inspection;
  const executing = ExecutorLock.probe(`${path}.lock`);
  if (executing === undefined) return inspection;
  if (!executing) {
    const again = await read();
    if (again && again.record.status !== "running") return again;
  }
  return { ...inspection, executing };
}

function inspectStore(store: RunStore, record: RunRecord = store.record()): RunInspection {
  return {
    record,
    pendingSuspension: store.pendingSuspension(record),
    executions: store.executions(),
  };
}
