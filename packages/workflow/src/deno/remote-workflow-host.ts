/**
 * The remote workflow host's runner: a run's state lives in its Durable
 * Object; this process acquires the run over one WebSocket, executes it
 * against a local working copy, and commits every change remotely before
 * the copy commits it.
 *
 * Invariants:
 * - Every decision is read first over a reader connection (no acquisition,
 *   no epoch counted): inspection, `answer`, a run waiting for an answer,
 *   and the replay of a finished run go no further. A completed replay
 *   copies the record and journal into a memory database and runs with no
 *   provider: no working copy of the Workspace, no Worker Shell.
 * - Only an execution acquires: `hello {role:"executor"}` (a second
 *   executor is `RunBusyError` and changes nothing), `begin` (or `create`),
 *   then the working copy is built from what the Durable Object committed
 *   (`working-copy.ts`) and `executeRun` runs on it unchanged, committing
 *   through `RemoteRunCommits`.
 * - The secret gate runs here, before any frame that carries what it checks
 *   (the Durable Object runs none).
 * - A lost connection is `RemoteConnectionLostError` (exit code 75): the
 *   change in flight was rolled back on the copy and is never repeated; the
 *   next acquisition reads the committed frontier and replay decides. The
 *   working copy is temporary and removed when the execution ends; one a
 *   killed runner left is removed by the next execution that can prove its
 *   owner dead (`working-copy-folder.ts`).
 * - What this host does not serve (`list`: the CLI answers it with the
 *   issue's one run) is refused with `RemoteUnsupportedError`, never
 *   emulated.
 *
 * @module
 */
import type { JsonValue } from "@xmd/core";
import { canonicalJson, sha256Hex } from "@xmd/core/protocol";
import { answerProblems, MAX_JSON_DEPTH, nestsDeeperThan, observedShell } from "@xmd/core/internal";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import type { PendingSuspension, RunRecord } from "../contracts/run-record.ts";
import {
  AnswerRefusedError,
  RunBusyError,
  RunNotFoundError,
  RunStateError,
  WorkerShellPermissionError,
} from "../contracts/workflow-errors.ts";
import type {
  ExecutionIo,
  ExecutionReport,
  ExportOptions,
  ExportReport,
  HistorySink,
  RunDiff,
  RunHistory,
  RunInspection,
  RunListing,
  StartRequest,
  WorkflowHost,
} from "../contracts/workflow-host.ts";
import { executionReport } from "../execution/execution-report.ts";
import { runBusyError } from "../execution/run-busy.ts";
import { checkRunId } from "../execution/run-id.ts";
import { newRun } from "../execution/new-run.ts";
import { checkStartConflict } from "../execution/start-conflict.ts";
import { gateStart } from "../execution/start-gate.ts";
import { checkWorkflowSupport, hasExecBlocks } from "../execution/workflow-support.ts";
import { RemoteRunCommits } from "../remote/remote-run-commits.ts";
import type { RunSnapshot } from "../remote/frames.ts";
import { RemoteProtocolError } from "../remote/remote-protocol-error.ts";
import { RemoteUnsupportedError } from "../remote/remote-refusal.ts";
import {
  fetchRoot,
  readRemoteRun,
  type RemoteRun,
  writeRunRows,
  writeWorkingCopy,
} from "../remote/working-copy.ts";
import { initializeSchema } from "../store/schema.ts";
import { checkCancellable, RunStore } from "../store/run-store.ts";
import { verifyRoot } from "../workspace/verify-root.ts";
import { diffRoots, walkRoot } from "../workspace/walk-root.ts";
import { checkExportTarget, exportDirectory } from "./export-directory.ts";
import { tripRemoteFailpoint, tripSentFailpoint } from "./failpoint.ts";
import { NodeSqliteSeam } from "./node-sqlite-seam.ts";
import type { RemoteConnection } from "./remote-connection.ts";
import type { WorkerShellOptions } from "./worker-shell.ts";
import { openWorkingCopy } from "./working-copy-database.ts";

let runningModules: Promise<typeof import("./host-running.ts")> | undefined;

/**
 * The modules that run documents, check runs and build working copies,
 * loaded on first use, by one `import()` however many callers wait for it
 * (as in `local-workflow-host.ts`): loading this host (`@xmd/workflow/deno`)
 * loads none of them (MDX-82).
 */
const running = () => runningModules ??= import("./host-running.ts");

/** How a remote host reaches its runs. */
export interface RemoteWorkflowHostOptions {
  /** The WebSocket URL of run `id` (the Worker that admits it routes it to its Durable Object). */
  url(id: string): string | URL;
  /** How Worker Shell runs exec blocks. */
  shell?: WorkerShellOptions;
  /**
   * The folder working copies are made in, one folder each (default:
   * `xmd-remote-copies` in the system's temporary folder); copies killed
   * runners left there are removed.
   */
  workDir?: string;
  /**
   * Extra request headers of every connection's upgrade (the admission
   * Worker's credentials); a function is asked once per connection, so a
   * long run never presents a token that expired meanwhile.
   */
  headers?: HeadersInit | (() => Promise<HeadersInit>);
}

/**
 * A `WorkflowHost` whose runs live in Durable Objects: the `WorkflowRun` of
 * `@xmd/workflow/cloudflare`, reached through the admission Worker
 * (`admissionWorker`, its one route `GET /v1/connect`), which verifies the
 * job's OIDC token, rereads the issue named by `X-Xmd-Issue` and derives
 * the issue's run id. A runner learns that id with `admittedRun()` and
 * names the run by it (the reader that learned it serves the next read of
 * the run, so no connection is opened only for the id; disposing of the
 * host closes it if nothing read); each method then behaves as
 * `LocalWorkflowHost`'s,
 * with `RemoteConnectionLostError` for a lost connection (run the command
 * again: it continues from what the Durable Object committed) and
 * `RemoteConnectionRefusedError` for an upgrade the Worker refused.
 *
 * @example Naming the issue's run and the job's token
 * ```ts
 * import assert from "node:assert/strict";
 * import { RemoteConnectionLostError, RemoteWorkflowHost } from "@xmd/workflow/deno";
 *
 * // What a GitHub Actions job asks its token service for (ACTIONS_ID_TOKEN_REQUEST_URL).
 * const oidcToken = () => Promise.resolve("<the job's OIDC token>");
 * using host = new RemoteWorkflowHost({
 *   // Every run is behind the Worker's one route: the issue names it.
 *   url: () => "ws://127.0.0.1:9/v1/connect",
 *   // Asked once per connection, so a long run never presents an expired token.
 *   headers: async () => ({
 *     authorization: `Bearer ${await oidcToken()}`,
 *     "x-xmd-issue": "octo/app#12",
 *   }),
 * });
 * // Nothing listens there: a lost connection (the CLI exits 75), never a hang.
 * await assert.rejects(host.admittedRun(), RemoteConnectionLostError);
 * ```
 */
export class RemoteWorkflowHost implements WorkflowHost, Disposable {
  readonly #options: RemoteWorkflowHostOptions;
  /** The reader `admittedRun` opened, kept for the next read of the run it names (RM-109). */
  #kept: { id: string; connection: RemoteConnection } | undefined;

  /** A host reaching each run at `options.url(id)`. */
  constructor(options: RemoteWorkflowHostOptions) {
    this.#options = options;
  }

  async start(request: StartRequest, io: ExecutionIo): Promise<ExecutionReport> {
    const id = request.id ?? crypto.randomUUID().replaceAll("-", "").slice(0, 12);
    checkRunId(id);
    checkWorkflowSupport(request.program);
    const { createSecretGate, definitionHash, disabledSecretGate, interpreterStartProblem } =
      await running();
    // The Durable Object runs no secret gate: nothing leaves this process before it.
    await gateStart(io.secretDetection === false ? disabledSecretGate : createSecretGate(), {
      id,
      program: request.program,
      target: request.target,
      props: request.props,
    });
    const shellProblem = hasExecBlocks(request.program) ? interpreterStartProblem() : null;
    if (shellProblem !== null) throw new WorkerShellPermissionError(shellProblem);
    const definition = definitionHash(request.program, request.target);
    const propsHash = sha256Hex(canonicalJson(request.props));
    const found = await this.#read(id);
    if (found) {
      checkStartConflict(found.snapshot.record, {
        definitionHash: definition,
        target: request.target,
        propsHash,
      });
      refuseSecretStop(found.snapshot.record, io);
      io.onRun(id);
      return await this.#continue(id, io, found);
    }
    const connection = await this.#acquire(id);
    try {
      await step(
        (onWritten) =>
          connection.call(
            {
              type: "create",
              run: newRun(id, request, definition, propsHash),
            },
            undefined,
            onWritten,
          ),
        "create",
      ).catch((error) => {
        // Another runner created the run between this one's read and its acquisition.
        if (!(error instanceof RemoteProtocolError && error.code === "run.exists")) throw error;
        throw new RemoteProtocolError(
          "run.exists",
          `Cannot start run "${id}": another runner started it meanwhile`,
          { cause: error },
        );
      });
      io.onRun(id);
      return await this.#execute(id, connection, io);
    } finally {
      connection.close();
    }
  }

  async resume(id: string, io: ExecutionIo): Promise<ExecutionReport> {
    checkRunId(id);
    const found = await this.#read(id);
    if (!found) throw notFound(id);
    refuseSecretStop(found.snapshot.record, io);
    io.onRun(id);
    return await this.#continue(id, io, found);
  }

  async answer(
    id: string,
    suspensionId: string,
    value: JsonValue,
    secretDetection: boolean,
  ): Promise<void> {
    checkRunId(id);
    using connection = await this.#connect(id, "reader");
    const { reply } = await connection.call({ type: "read-run" });
    if (!reply.run) throw notFound(id);
    const { record, pending } = reply.run;
    if (!pending) {
      throw new RunStateError(
        `Cannot answer run "${id}": it is ${record.status}, not waiting for an answer`,
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
    const { createSecretGate, disabledSecretGate } = await running();
    const gate = secretDetection ? createSecretGate() : disabledSecretGate;
    await gate.check(JSON.stringify(value), `the answer to ${suspensionId}`);
    // The Durable Object checks again in its transaction: another answer may have won meanwhile.
    await connection.call({ type: "answer", suspensionId, value });
  }

  async inspect(id: string): Promise<RunInspection> {
    checkRunId(id);
    const { record, pending, executions } = await this.#readRecord(id);
    return inspection(record, pending, executions);
  }

  async history(id: string): Promise<RunHistory> {
    checkRunId(id);
    const found = await this.#read(id);
    if (!found) throw notFound(id);
    const { record, pending, executions } = found.snapshot;
    // As locally: each event with its id, time and root; the execution that wrote it is internal.
    const events = found.events.map(({ id, at, root, event }) => ({ id, at, root, event }));
    return { ...inspection(record, pending, executions), events };
  }

  /** The remote run's history arrives whole, in one read: it is delivered as one page. */
  async streamHistory(id: string, sink: HistorySink): Promise<void> {
    const { events, ...inspection } = await this.history(id);
    sink.inspection(inspection);
    if (events.length > 0) sink.events(events);
  }

  list(): Promise<RunListing> {
    return Promise.reject(
      new RemoteUnsupportedError(
        "Cannot list remote runs: a remote run is found by its issue, not listed",
      ),
    );
  }

  async export(
    id: string,
    at: number | null,
    directory: string,
    options: ExportOptions = {},
  ): Promise<ExportReport> {
    checkRunId(id);
    using connection = await this.#connect(id, "reader");
    const found = await readRemoteRun(connection);
    if (!found) throw notFound(id);
    const { record, links } = found.snapshot;
    const event = at ?? (record.eventCount > 0 ? record.eventCount : null);
    const root = at === null ? record.root : rootAfter(found, id, at);
    await checkExportTarget(directory);
    const { nativeSha256Hex } = await running();
    using seam = memoryDatabase();
    await fetchRoot(connection, seam, root, nativeSha256Hex);
    const where = `run "${id}"`;
    verifyRoot(seam, root, where, nativeSha256Hex);
    // Hard links are known for the current root only (root format 1 holds none), as locally.
    const counts = await exportDirectory(
      walkRoot(seam, root, where, nativeSha256Hex),
      root === record.root ? links : [],
      directory,
      options,
    );
    return { id, event, root, ...counts };
  }

  async diff(id: string, from: number, to: number): Promise<RunDiff> {
    checkRunId(id);
    using connection = await this.#connect(id, "reader");
    const found = await readRemoteRun(connection);
    if (!found) throw notFound(id);
    const a = rootAfter(found, id, from);
    const b = rootAfter(found, id, to);
    const { nativeSha256Hex } = await running();
    using seam = memoryDatabase();
    await fetchRoot(connection, seam, a, nativeSha256Hex);
    await fetchRoot(connection, seam, b, nativeSha256Hex);
    return {
      from: { event: from, root: a },
      to: { event: to, root: b },
      ...diffRoots(seam, a, b, `run "${id}"`),
    };
  }

  async cancel(id: string): Promise<void> {
    checkRunId(id);
    // Decided on a reader first, as locally: a refused cancel acquires nothing, so changes nothing.
    const { status } = (await this.#readRecord(id)).record;
    if (status !== "running") checkCancellable(id, status);
    using connection = await this.#acquire(id);
    await connection.call({ type: "cancel" }).catch((error) => {
      throw error instanceof RunNotFoundError ? notFound(id) : error;
    });
  }

  async delete(id: string): Promise<void> {
    checkRunId(id);
    await this.#readRecord(id);
    using connection = await this.#acquire(id);
    await connection.call({ type: "delete" }).catch((error) => {
      throw error instanceof RunNotFoundError ? notFound(id) : error;
    });
  }

  /** Decides on what a reader read, acquiring only when there is something to execute. */
  async #continue(id: string, io: ExecutionIo, found: RemoteRun): Promise<ExecutionReport> {
    const { createSecretGate, disabledSecretGate, executeRun } = await running();
    const { record, pending } = found.snapshot;
    switch (record.status) {
      case "completed":
      case "failed": {
        const last = found.events.at(-1)?.event;
        if (last?.type !== "close" || last.coroutineId !== "root") return reportOf(found);
        // A finished journal: its output reproduced from the record and journal alone.
        using seam = memoryDatabase();
        writeRunRows(seam, found);
        const store = new RunStore(seam, `run "${id}"`);
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
      case "cancelled":
        return reportOf(found);
      case "suspended": {
        if (pending && !pending.answered) return reportOf(found);
        const answer = found.snapshot.answers.find((a) => a.suspensionId === pending?.suspensionId);
        if (pending && answer && io.secretDetection !== false) {
          // As locally: an answer accepted with --no-secret-detection stays suspended here.
          await createSecretGate().check(
            JSON.stringify(answer.value),
            `the answer to ${pending.suspensionId}`,
          );
        }
        break;
      }
    }
    const connection = await this.#acquire(id);
    try {
      // Acquisition closed a `running` run whose executor is gone as interrupted.
      const { reply } = await connection.call({ type: "read-run" });
      if (!reply.run) throw notFound(id);
      const expected = reply.run.frontier;
      await step(
        (onWritten) => connection.call({ type: "begin", expected }, undefined, onWritten),
        "begin-execution",
      );
      return await this.#execute(id, connection, io);
    } finally {
      connection.close();
    }
  }

  /**
   * Executes the run `connection` holds (created or begun): its committed
   * state copied into a temporary working copy, every change committed
   * through the connection.
   */
  async #execute(
    id: string,
    connection: RemoteConnection,
    io: ExecutionIo,
  ): Promise<ExecutionReport> {
    const where = `run "${id}"`;
    const run = await readRemoteRun(connection);
    if (!run) throw notFound(id);
    const { createSecretGate, disabledSecretGate, executeRun, nativeSha256Hex, WorkerShell } =
      await running();
    const { defaultCopiesFolder, WorkingCopyFolder } = await import("./working-copy-folder.ts");
    // A copy a killed runner left behind is removed here, once its lock proves it dead.
    await using folder = await WorkingCopyFolder.create(
      this.#options.workDir ?? defaultCopiesFolder(),
    );
    using seam = await openWorkingCopy(join(folder.path, "copy.sqlite"), where);
    const known = await fetchRoot(connection, seam, run.snapshot.record.root, nativeSha256Hex);
    writeWorkingCopy(seam, run, where, nativeSha256Hex);
    const store = new RunStore(seam, where);
    const commits = new RemoteRunCommits(
      connection,
      seam,
      known,
      run.snapshot.links,
      where,
      { onSent: tripSentFailpoint, sha256: nativeSha256Hex },
    );
    const result = await executeRun({
      store,
      execution: run.snapshot.frontier.execution,
      shell: (workspace) => {
        const shell = new WorkerShell(workspace, this.#options.shell ?? {});
        return io.onExec ? observedShell(shell, (position) => io.onExec!(position)) : shell;
      },
      sha256: nativeSha256Hex,
      gate: io.secretDetection === false ? disabledSecretGate : createSecretGate(),
      stdout: io.stdout,
      stderr: io.stderr,
      signal: io.signal,
      commits,
    });
    return executionReport(store, result.outcome);
  }

  /** The run's record, pending question and executions over a reader connection. */
  async #readRecord(id: string): Promise<RunSnapshot> {
    using connection = await this.#connect(id, "reader");
    const { reply } = await connection.call({ type: "read-run" });
    if (!reply.run) throw notFound(id);
    return reply.run;
  }

  /** The run's record and journal over a reader connection, or null when there is none. */
  async #read(id: string): Promise<RemoteRun | null> {
    using connection = await this.#connect(id, "reader");
    return await readRemoteRun(connection);
  }

  /** An executor connection that holds the run (`RunBusyError` while another does, as locally). */
  async #acquire(id: string): Promise<RemoteConnection> {
    try {
      return await this.#connect(id, "executor");
    } catch (error) {
      throw error instanceof RunBusyError ? runBusyError(id, { cause: error }) : error;
    }
  }

  /**
   * The id of the run the Durable Object at `options.url(id)` was admitted
   * for, as its `hello` names it: a runner admitted by an issue learns its
   * run's id here (the admitting Worker derives it), never computes it.
   */
  async admittedRun(id = ""): Promise<string> {
    this[Symbol.dispose]();
    const connection = await this.#open(id);
    try {
      const { reply } = await connection.call({ type: "hello", role: "reader" });
      this.#kept = { id: reply.run, connection };
      return reply.run;
    } catch (error) {
      connection.close();
      throw error;
    }
  }

  /** Closes the reader `admittedRun` kept, if no read has used it. */
  [Symbol.dispose](): void {
    this.#kept?.connection.close();
    this.#kept = undefined;
  }

  async #open(id: string): Promise<RemoteConnection> {
    const headers = this.#options.headers;
    // The WebSocket client is this host's alone: loaded with its first connection.
    const { RemoteConnection } = await import("./remote-connection.ts");
    return await RemoteConnection.open(this.#options.url(id), {
      headers: typeof headers === "function" ? await headers() : headers,
    });
  }

  async #connect(id: string, role: "executor" | "reader"): Promise<RemoteConnection> {
    const kept = this.#kept;
    this.#kept = undefined;
    if (kept?.connection.open && kept.id === id && role === "reader") return kept.connection;
    kept?.connection.close();
    const connection = await this.#open(id);
    try {
      await connection.call({ type: "hello", role });
      return connection;
    } catch (error) {
      connection.close();
      throw error;
    }
  }
}

/**
 * Sends a lifecycle request with `send` and awaits it, with its `sent`
 * (its frame written to the socket) and `acked` failpoints.
 */
async function step<T>(
  send: (onWritten: () => void) => Promise<T>,
  point: "create" | "begin-execution",
): Promise<T> {
  const reply = await send(() => tripRemoteFailpoint(point, "sent"));
  tripRemoteFailpoint(point, "acked");
  return reply;
}

/** A database in memory with the run schema (for a replay, an export or a diff). */
function memoryDatabase(): NodeSqliteSeam {
  const seam = new NodeSqliteSeam(new DatabaseSync(":memory:"), "a remote run's copy");
  initializeSchema(seam);
  return seam;
}

function notFound(id: string): RunNotFoundError {
  return new RunNotFoundError(`Cannot find run "${id}": no such remote run`);
}

/** As locally: a run the secret gate stopped is continued only with the gate off. */
function refuseSecretStop(record: RunRecord, io: ExecutionIo): void {
  const { id, status, stopReason } = record;
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

function rootAfter(found: RemoteRun, id: string, event: number): string {
  const entry = found.events[event - 1];
  if (entry !== undefined && entry.id === event) return entry.root;
  const count = found.events.length;
  throw new RunStateError(
    `Cannot find event ${event} of run "${id}": ${
      count === 0 ? "it has no events yet" : `its events are 1 to ${count}`
    }`,
    "no-such-event",
  );
}

function inspection(
  record: RunRecord,
  pending: PendingSuspension | null,
  executions: RunInspection["executions"],
): RunInspection {
  return { record, pendingSuspension: pending, executions };
}

/** The report of a run this host decided not to execute, from what a reader read of it. */
function reportOf(found: RemoteRun): ExecutionReport {
  const { record, pending } = found.snapshot;
  return executionReport({ record: () => record, pendingSuspension: () => pending });
}
