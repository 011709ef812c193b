/**
 * The interface the CLI talks to, whatever hosts the run (a local SQLite file,
 * a Durable Object). Providers implement it; the CLI formats what it returns.
 *
 * @module
 */
import type { JournalEvent, JsonObject, JsonValue, Program, SourcePosition } from "@xmd/core";
import type { DocumentExecution, PendingSuspension, RunRecord, RunStatus } from "./run-record.ts";

/** What `start` needs: a loaded program and its resolved props. */
export interface StartRequest {
  /** `--id`, or undefined for a random id. */
  id?: string;
  /** The loaded program (root and components), checked before anything is created. */
  program: Program;
  /** `Section/Sub`, if any. */
  target?: string;
  /** Resolved, validated props. */
  props: JsonObject;
}

/** Where an execution writes as it runs. */
export interface ExecutionIo {
  /** The rendered document. */
  stdout(text: string): void;
  /** Shell stderr. */
  stderr(text: string): void;
  /** Called once the run exists (committed), with its id. */
  onRun(id: string): void;
  /** Aborted on Ctrl-C. */
  signal: AbortSignal;
  /** Whether events pass the secret gate (default true). */
  secretDetection?: boolean;
  /**
   * Told when an exec block starts to run (never for a replayed one), with its
   * position; the function it returns is called once the block has ended,
   * before anything after it is written (the CLI's progress line).
   */
  onExec?(position: SourcePosition): () => void;
}

/** What an execution (or a replay) ended with. */
export interface ExecutionReport {
  /** The run id. */
  id: string;
  /** The committed status. */
  status: RunStatus;
  /** The question it waits on, when suspended. */
  pendingSuspension: PendingSuspension | null;
  /** The failure's message, when failed by a checked failure. */
  failure: string | null;
}

/** Everything `status` and `history` show. */
export interface RunInspection {
  /** The run record. */
  record: RunRecord;
  /** The question it waits on, when suspended. */
  pendingSuspension: PendingSuspension | null;
  /** Its executions, in order. */
  executions: DocumentExecution[];
  /**
   * For a `running` run, when the host can tell: whether a process executes
   * it now. False means its executor was killed or crashed before it settled
   * the run (`resume` recovers it).
   */
  executing?: boolean;
}

/** A run's committed journal, for `history`. */
export interface RunHistory extends RunInspection {
  /**
   * Every event with its id (1-based), commit time (milliseconds) and the
   * Workspace root current after it.
   */
  events: HistoryEvent[];
}

/** One committed journal event as `history` returns it. */
export interface HistoryEvent {
  /** Its id (1-based). */
  id: number;
  /** Its commit time (milliseconds). */
  at: number;
  /** The Workspace root current after it. */
  root: string;
  /** The event. */
  event: JournalEvent;
}

/**
 * Where {@linkcode WorkflowHost.streamHistory} delivers a run's history:
 * `inspection` once, first, then `events` once per page of events, in order
 * (never for an empty journal). Every call comes from one read of the run,
 * so the pages and the inspection are one consistent snapshot.
 */
export interface HistorySink {
  /** The run's inspection. */
  inspection(inspection: RunInspection): void;
  /** The next page of events. */
  events(page: readonly HistoryEvent[]): void;
}

/** How `export` writes modes. */
export interface ExportOptions {
  /**
   * Writes every recorded mode bit, set-uid, set-gid and sticky included, and
   * ignores the umask. By default those three bits are dropped and the umask
   * applies, as for any file a program creates.
   */
  preserveModes?: boolean;
}

/** What `export` wrote. */
export interface ExportReport {
  /** The run id. */
  id: string;
  /** The event whose root was exported (null: the run has no event yet). */
  event: number | null;
  /** The exported root id. */
  root: string;
  /** Directories created (the target not counted). */
  directories: number;
  /** Regular files written. */
  files: number;
  /** Symlinks created. */
  symlinks: number;
  /** Hard links recreated (only from the live Workspace; an older root has none). */
  hardLinks: number;
}

/** What differs between the roots after two events, for `diff`. */
export interface RunDiff {
  /** The first event and its root. */
  from: { event: number; root: string };
  /** The second event and its root. */
  to: { event: number; root: string };
  /** Paths only in the second root, sorted by UTF-8 bytes. */
  added: string[];
  /** Paths only in the first root, sorted. */
  removed: string[];
  /** Paths in both with a different file, mode, symlink target or kind, sorted. */
  changed: string[];
}

/** What `list` found. */
export interface RunListing {
  /** Every readable run, newest first. */
  runs: RunInspection[];
  /** Files in the runs folder that were refused (foreign, newer, damaged), left untouched. */
  unreadable: { file: string; reason: string }[];
}

/** A workflow host. */
export interface WorkflowHost {
  /** Creates a run (or addresses the compatible run `--id` names) and executes it. */
  start(request: StartRequest, io: ExecutionIo): Promise<ExecutionReport>;
  /** Continues a suspended or interrupted run; replays a completed one. */
  resume(id: string, io: ExecutionIo): Promise<ExecutionReport>;
  /** Delivers an answer to a suspended run; appends nothing, changes no status. */
  answer(
    id: string,
    suspensionId: string,
    value: JsonValue,
    secretDetection: boolean,
  ): Promise<void>;
  /** Reads a run without locking or running anything. */
  inspect(id: string): Promise<RunInspection>;
  /** A run's inspection and its committed journal events. */
  history(id: string): Promise<RunHistory>;
  /**
   * The same as {@linkcode history}, delivered to `sink` a page at a time:
   * what is held is one page of events, however long the journal.
   */
  streamHistory(id: string, sink: HistorySink): Promise<void>;
  /** Lists every run, and the run files it could not read. */
  list(): Promise<RunListing>;
  /**
   * Writes the run's current Workspace root, or the root after event `at`,
   * into `directory` (missing or empty). The root is verified first; takes
   * no lock and changes nothing in the run. All or nothing: a failed export
   * leaves no file behind.
   */
  export(
    id: string,
    at: number | null,
    directory: string,
    options?: ExportOptions,
  ): Promise<ExportReport>;
  /** Paths added, removed and changed between the roots after events `from` and `to`. Reads only. */
  diff(id: string, from: number, to: number): Promise<RunDiff>;
  /** Cancels a suspended or interrupted run. */
  cancel(id: string): Promise<void>;
  /** Deletes a run that is not running. */
  delete(id: string): Promise<void>;
}
