/**
 * The refusals of the workflow host. Each states what is wrong (the CLI adds
 * what command to run) and carries its stable `code`; none echoes a stored
 * value, a prop or a secret.
 *
 * @module
 */
import { XmdError } from "@xmd/core/protocol";

/** A file that is not an xmd run database (another SQLite file, or not SQLite at all). */
export class WorkflowDatabaseFormatError extends XmdError {
  /** The class name, which journals record. */
  override name = "WorkflowDatabaseFormatError";
  /** Its stable code. */
  readonly code = "db.format";
}

/** A run database written by a newer xmd. */
export class WorkflowSchemaVersionError extends XmdError {
  /** The class name, which journals record. */
  override name = "WorkflowSchemaVersionError";
  /** Its stable code. */
  readonly code = "db.version";
}

/** A run database that is ours but damaged or partially initialized. Nothing is repaired. */
export class WorkflowDatabaseCorruptError extends XmdError {
  /** The class name, which journals record. */
  override name = "WorkflowDatabaseCorruptError";
  /** Its stable code. */
  readonly code = "db.corrupt";
}

/**
 * A run database SQLite cannot read without writing beside it or into it: its
 * folder is read-only and the `-wal`/`-shm` it needs are missing, or a write
 * stopped half-way whose rollback journal only a writer can apply.
 */
export class RunDatabaseAccessError extends XmdError {
  /** The class name, which journals record. */
  override name = "RunDatabaseAccessError";
  /** Its stable code. */
  readonly code = "db.access";
  /** Which of the two it is. */
  readonly reason: "read-only-folder" | "unfinished-write";

  /** A refusal saying `message`, for `reason`. */
  constructor(
    message: string,
    reason: "read-only-folder" | "unfinished-write",
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.reason = reason;
  }
}

/**
 * Why no run was found: no database holds it (`missing`), its start stopped
 * before the run was created (`unfinished-start`), or the id cannot name a run
 * (`invalid-id`).
 */
export type RunNotFoundReason = "missing" | "unfinished-start" | "invalid-id";

/** No run has this id. */
export class RunNotFoundError extends XmdError {
  /** The class name, which journals record. */
  override name = "RunNotFoundError";
  /** Its stable code. */
  readonly code = "run.not_found";
  /** Why, so a caller can say what to do next. */
  readonly reason: RunNotFoundReason;

  /** A refusal saying `message`, for `reason`. */
  constructor(message: string, reason: RunNotFoundReason = "missing", options?: ErrorOptions) {
    super(message, options);
    this.reason = reason;
  }
}

/** Another executor holds the run. */
export class RunBusyError extends XmdError {
  /** The class name, which journals record. */
  override name = "RunBusyError";
  /** Its stable code. */
  readonly code = "run.busy";
}

/**
 * Which state refused the request, where a caller has something to suggest:
 * an answer is already waiting to be used (`answer-waiting`), the secret gate
 * stopped the run and would refuse it again (`secret-stop`), the event named
 * does not exist (`no-such-event`); `state` for any other.
 */
export type RunStateReason = "state" | "answer-waiting" | "secret-stop" | "no-such-event";

/** The request does not fit the run's state (resume a failed run, answer a run that is not suspended…). */
export class RunStateError extends XmdError {
  /** The class name, which journals record. */
  override name = "RunStateError";
  /** Its stable code. */
  readonly code = "run.state";
  /** Which state refused it. */
  readonly reason: RunStateReason;

  /** A refusal saying `message`, for `reason`. */
  constructor(message: string, reason: RunStateReason = "state", options?: ErrorOptions) {
    super(message, options);
    this.reason = reason;
  }
}

/** `start --id` names an existing run whose definition, target or props differ. */
export class RunConflictError extends XmdError {
  /** The class name, which journals record. */
  override name = "RunConflictError";
  /** Its stable code. */
  readonly code = "run.conflict";
}

/** An answer refused: not JSON, wrong suspension, fails its schema, already answered. */
export class AnswerRefusedError extends XmdError {
  /** The class name, which journals record. */
  override name = "AnswerRefusedError";
  /** Its stable code. */
  readonly code = "answer.refused";
}

/** The executor lost its claim on the run (another executor took over). */
export class ExecutorLostError extends XmdError {
  /** The class name, which journals record. */
  override name = "ExecutorLostError";
  /** Its stable code. */
  readonly code = "executor.lost";
}

/**
 * `export` refused: its target (not empty, not a directory, not writable) or
 * a path the host cannot create there. Nothing was written.
 */
export class ExportRefusedError extends XmdError {
  /** The class name, which journals record. */
  override name = "ExportRefusedError";
  /** Its stable code. */
  readonly code = "export.refused";
  /** The host's POSIX code, when the host refused (`ENAMETOOLONG`, `ENOTDIR`, …). */
  readonly posix?: string;
  /** The Workspace path the host refused, when it was not the target itself. */
  readonly path?: string;

  /** A refused export saying `message`, with the host's POSIX code and the Workspace `path` when known. */
  constructor(message: string, options?: ErrorOptions & { posix?: string; path?: string }) {
    super(message, options);
    this.posix = options?.posix;
    this.path = options?.path;
  }
}

/**
 * The shell stopped before its block ended, for a reason outside the document
 * (its process was killed or crashed). The block's effect is not journaled and
 * its changes are discarded; the run is left `interrupted`, to resume.
 */
export class ShellLostError extends XmdError {
  /** The class name, which journals record. */
  override name = "ShellLostError";
  /** Its stable code. */
  readonly code = "shell.lost";
}

/** This process may not start the shell interpreter a document's exec blocks need. Nothing was created. */
export class WorkerShellPermissionError extends XmdError {
  /** The class name, which journals record. */
  override name = "WorkerShellPermissionError";
  /** Its stable code. */
  readonly code = "shell.permission";
}

/** The runs folder cannot hold runs: it is not a directory, or the host refuses to create or read it. */
export class RunsFolderError extends XmdError {
  /** The class name, which journals record. */
  override name = "RunsFolderError";
  /** Its stable code. */
  readonly code = "runs.folder";
}

/**
 * A host ran effects, or committed to a remote authority, over a SQL seam
 * that cannot hold a transaction across them (`SqlSeam.hold`): each
 * statement would commit on its own and the run's root would never move.
 * A wiring mistake of the host, refused before anything is written.
 */
export class HeldTransactionRequiredError extends XmdError {
  /** The class name, which journals record. */
  override name = "HeldTransactionRequiredError";
  /** Its stable code. */
  readonly code = "sql.hold_required";
}
