/**
 * Executing a retained run: its definition is loaded from the run store (the
 * working tree is never read), its journal is the store's event table, and
 * its outcome becomes a committed lifecycle transition.
 *
 * Invariants:
 * - A status is settled only after the events that justify it are committed;
 *   locally the root Close commits in the same transaction as the settlement
 *   it implies (WF-181).
 * - A completed journal is replayed with no provider attached and appends
 *   nothing; under an execution (its last executor died before settling) only
 *   the settlement its outcome implies is committed.
 * - An error that must not be journaled (divergence, storage) ends the
 *   execution as `failed` with a host stop code, then is rethrown; a shell
 *   that died under its block (`ShellLostError`) ends it `interrupted` (stop
 *   code `crashed`), to resume.
 * - A refusal of the secret gate (in an event, or in what an effect wrote
 *   into the Workspace) keeps nothing of that effect and ends the execution
 *   as `interrupted` with stop code `secret_detected`, then is rethrown: the
 *   run lost nothing and can go on, once its caller accepts what the effect
 *   produces (`--no-secret-detection`).
 * - An execution needs a seam that can hold a transaction (`SqlSeam.hold`):
 *   without one it is refused with `HeldTransactionRequiredError` before
 *   anything is read or written (the caller's execution is left `running`,
 *   for the next executor to recover).
 * - With `commits`, every append and the settlement are offered to that
 *   authority before they commit locally (see `run-commits.ts`). A rejected
 *   append is a storage failure like any other: nothing of it is kept and
 *   the execution is settled `failed` (`storage_failure`) through the same
 *   authority, which may refuse that too; then nothing is settled and the
 *   next executor recovers the run as interrupted (`crashed`).
 *
 * @module
 */
import {
  type Description,
  DivergenceError,
  type DurableStream,
  Journal,
  type JournalEvent,
  type JsonValue,
  loadProgram,
  type Program,
  type Providers,
  type RecordedHistory,
  type RunOutcome,
  runProgram,
  SecretDetectedError,
  type SecretGate,
  SecretScanError,
  type ShellProvider,
} from "@xmd/core";
import type { HostStopCode, RunStatus, StopReason } from "../contracts/run-record.ts";
import { HeldTransactionRequiredError, ShellLostError } from "../contracts/workflow-errors.ts";
import type { RunStore } from "../store/run-store.ts";
import type { Sha256 } from "../workspace/root-format.ts";
import { verifyRoot } from "../workspace/verify-root.ts";
import { Workspace } from "../workspace/workspace.ts";
import { WorkspaceFileSystem } from "./workspace-file-system.ts";
import { EffectTransactions } from "./effect-transactions.ts";
import { type RunCommits, settleRun } from "./run-commits.ts";
import { notYetAvailableShell } from "./workflow-support.ts";

/** What executing a run needs. */
export interface ExecuteRunOptions {
  /** The run's store. */
  store: RunStore;
  /** The execution that holds the run (from `create` or `beginExecution`); null to replay only. */
  execution: number | null;
  /**
   * The shell for exec blocks, over the run's Workspace (the local provider's
   * Worker Shell); without it exec blocks are refused. Its `asyncDispose`
   * stops it before its first `await`, and its promise ends once its
   * processes have.
   */
  shell?: (workspace: Workspace) => ShellProvider & Partial<AsyncDisposable>;
  /** The SHA-256 the Workspace names chunks and objects with (default: `sha256Hex`). */
  sha256?: Sha256;
  /** The secret gate every event passes. */
  gate: SecretGate;
  /** Receives the rendered document. */
  stdout(text: string): void;
  /** Receives shell blocks' stderr. */
  stderr(text: string): void;
  /** Aborted on Ctrl-C. */
  signal: AbortSignal;
  /**
   * Where each append and the settlement become authoritative before the
   * local copy commits (the remote host's Durable Object); none locally,
   * where the run database's COMMIT is the authority.
   */
  commits?: RunCommits;
  /**
   * The program the store's sources load into, when the caller has just
   * retained them from it (a new run, in the same process): loading them
   * again would parse the same texts into the same program, so they are
   * parsed once. Absent, the retained sources are loaded from the store.
   */
  program?: Program;
}

/** How an execution ended, as committed. */
export interface ExecutionResult {
  /** The status committed (or, for a replay, the run's status). */
  status: RunStatus;
  /** The engine's outcome. */
  outcome: RunOutcome;
}

/** Loads the retained definition of a run as a program. */
export async function loadRetainedProgram(store: RunStore): Promise<Program> {
  const sources = store.sources();
  const root = sources.find((source) => source.root)!;
  const byLabel = new Map(sources.map((source) => [source.label, source.text]));
  return await loadProgram(
    { file: root.label, text: root.text },
    (label) => Promise.resolve(byLabel.get(label)),
    { target: store.record().target ?? undefined },
  );
}

/**
 * Runs (or replays) a run from its store and commits the outcome. Returns
 * once every process its shell started has ended: the shell is killed as soon
 * as the program is over, and its processes end while the outcome is settled
 * (they can change nothing by then: the shell refuses a finished effect's
 * requests).
 */
export async function executeRun(options: ExecuteRunOptions): Promise<ExecutionResult> {
  const shellsEnded: Promise<void>[] = [];
  try {
    return await execute(options, shellsEnded);
  } finally {
    await Promise.all(shellsEnded);
  }
}

async function execute(
  options: ExecuteRunOptions,
  shellsEnded: Promise<void>[],
): Promise<ExecutionResult> {
  const { store, execution } = options;
  // Checked before anything is read or written: effects and remote commits need a held transaction.
  if (execution !== null && !store.sql.hold) {
    throw new HeldTransactionRequiredError(
      "Cannot execute a run over a SQL seam that cannot hold a transaction across an effect",
    );
  }
  const program = options.program ?? await loadRetainedProgram(store);
  const { commits } = options;
  const effects = new EffectTransactions(store, options.gate, options.sha256, commits);
  const stream = new RunJournalStream(store, execution, effects);
  const journal = await Journal.open(stream, effects.eventGate());
  const replayOnly = execution === null;
  // Under an execution, a completed journal means the previous executor died
  // between the root Close and its settlement (remotely, or a run written
  // before WF-181): the stored outcome is reproduced without providers, then settled.
  const detached = replayOnly || journal.state === "completed";
  let outcome: RunOutcome;
  let shell: (ShellProvider & Partial<AsyncDisposable>) | undefined;
  try {
    let providers = detachedProviders();
    if (!detached) {
      // A partial replay continues from the current root; a damaged Workspace stops it.
      const record = store.record();
      verifyRoot(store.sql, record.root, `run "${record.id}"`, options.sha256);
      const workspace = new Workspace(store.sql, { sha256: options.sha256 });
      shell = options.shell?.(workspace);
      providers = {
        fs: effects.wrapFileSystem(new WorkspaceFileSystem(workspace)),
        shell: effects.wrapShell(shell ?? notYetAvailableShell()),
        elicit: {
          suspends: true,
          answer: (id: string) => Promise.resolve(store.answer(id) as JsonValue | undefined),
        },
      };
    }
    outcome = await runProgram({
      program,
      props: store.props(),
      providers,
      journal,
      stdout: options.stdout,
      stderr: options.stderr,
      signal: options.signal,
      sha256: options.sha256,
    });
  } catch (error) {
    effects.rollback();
    if (!replayOnly) await settleAfterFailure(store, commits, execution, error);
    throw error;
  } finally {
    // Killed now (synchronously), awaited by `executeRun` after the settlement.
    const disposed = shell?.[Symbol.asyncDispose]?.();
    if (disposed) {
      const ended = Promise.resolve(disposed);
      ended.catch(() => {});
      shellsEnded.push(ended);
    }
  }
  if (replayOnly) {
    effects.rollback();
    return { status: store.record().status, outcome };
  }
  const last = () => store.record().eventCount;
  const settle = (status: RunStatus, stopReason: StopReason | null) =>
    effects.settle(execution, status, stopReason);
  switch (outcome.status) {
    case "completed":
      await settle("completed", null);
      return { status: "completed", outcome };
    case "failed":
      await settle("failed", { kind: "journal", eventId: last() });
      return { status: "failed", outcome };
    case "suspended":
      await settle("suspended", { kind: "journal", eventId: outcome.eventNumber });
      return { status: "suspended", outcome };
    case "cancelled":
      await settle("interrupted", { kind: "host", code: "interrupted" });
      return { status: "interrupted", outcome };
  }
}

async function settleAfterFailure(
  store: RunStore,
  commits: RunCommits | undefined,
  execution: number,
  error: unknown,
): Promise<void> {
  if (error instanceof ShellLostError) {
    // Nothing of the block was journaled: the run resumes by running it again.
    try {
      await settleRun(store, commits, execution, "interrupted", { kind: "host", code: "crashed" });
    } catch {
      // As below: the next executor recovers the run as interrupted.
    }
    return;
  }
  const refused = isSecretRefusal(error);
  const code: HostStopCode = refused
    ? "secret_detected"
    : error instanceof DivergenceError
    ? "divergence"
    : "storage_failure";
  try {
    await settleRun(store, commits, execution, refused ? "interrupted" : "failed", {
      kind: "host",
      code,
    });
  } catch {
    // The store itself failed, this executor lost the run, or its authority
    // refused the settlement too: the next executor finds the run `running`
    // and recovers it as interrupted.
  }
}

/** Whether `error` is the secret gate's refusal (a finding, or a scan that failed: it fails closed). */
export function isSecretRefusal(error: unknown): boolean {
  return error instanceof SecretDetectedError || error instanceof SecretScanError;
}

/**
 * The store's event table as the journal's durable stream, written under one
 * execution and read in pages.
 */
class RunJournalStream implements DurableStream {
  readonly #store: RunStore;
  readonly #execution: number | null;
  readonly #effects: EffectTransactions;

  constructor(store: RunStore, execution: number | null, effects: EffectTransactions) {
    this.#store = store;
    this.#execution = execution;
    this.#effects = effects;
  }

  readAll(): Promise<JournalEvent[]> {
    return Promise.resolve(this.#store.events().map((entry) => entry.event));
  }

  /**
   * The event table a page at a time (the journal reads it so): a replay of
   * any length holds one page of events, not the journal (WF-200).
   */
  history(): Promise<RecordedHistory> {
    const store = this.#store;
    const length = store.record().eventCount;
    return Promise.resolve({
      length,
      last: length === 0 ? undefined : store.lastEvent()?.event,
      read: (from: number, count: number) =>
        Promise.resolve(store.eventPage(from + 1, count).map((entry) => entry.event)),
    });
  }

  append(event: JournalEvent): Promise<void> {
    if (this.#execution === null) {
      return Promise.reject(new Error("A replay appends nothing; this is a bug in xmd"));
    }
    return this.#effects.append(this.#execution, event);
  }

  beginEffect(_coroutineId: string, description: Description): void {
    if (this.#execution === null) throw new Error("A replay runs no effect; this is a bug in xmd");
    this.#effects.begin(description);
  }

  abandonEffect(): void {
    this.#effects.rollback();
  }
}

/** Providers for a completed replay: none may be called, and none is. */
function detachedProviders(): Providers {
  const refuse = () =>
    Promise.reject(new Error("A completed replay attaches no provider; this is a bug in xmd"));
  return {
    fs: { readText: refuse, writeText: refuse, glob: refuse },
    shell: { run: refuse },
    elicit: { suspends: true, answer: refuse },
  };
}
