/**
 * The refusals of the workflow host. Each says what is wrong and what to do;
 * none echoes a stored value, a prop or a secret.
 *
 * @module
 */

/** A file that is not an xmd run database (another SQLite file, or not SQLite at all). */
export class WorkflowDatabaseFormatError extends Error {
  /** The class name, by which the CLI and journals recognize the error. */
  override name = "WorkflowDatabaseFormatError";
}

/** A run database written by a newer xmd. */
export class WorkflowSchemaVersionError extends Error {
  /** The class name, by which the CLI and journals recognize the error. */
  override name = "WorkflowSchemaVersionError";
}

/** A run database that is ours but damaged or partially initialized. Nothing is repaired. */
export class WorkflowDatabaseCorruptError extends Error {
  /** The class name, by which the CLI and journals recognize the error. */
  override name = "WorkflowDatabaseCorruptError";
}

/**
 * A run database SQLite cannot read without writing beside it or into it: its
 * folder is read-only and the `-wal`/`-shm` it needs are missing, or a write
 * stopped half-way whose rollback journal only a writer can apply.
 */
export class RunDatabaseAccessError extends Error {
  /** The class name, by which the CLI and journals recognize the error. */
  override name = "RunDatabaseAccessError";
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

/** No run has this id. */
export class RunNotFoundError extends Error {
  /** The class name, by which the CLI and journals recognize the error. */
  override name = "RunNotFoundError";
}

/** Another executor holds the run. */
export class RunBusyError extends Error {
  /** The class name, by which the CLI and journals recognize the error. */
  override name = "RunBusyError";
}

/** The request does not fit the run's state (resume a failed run, answer a run that is not suspended…). */
export class RunStateError extends Error {
  /** The class name, by which the CLI and journals recognize the error. */
  override name = "RunStateError";
}

/** `start --id` names an existing run whose definition, target or props differ. */
export class RunConflictError extends Error {
  /** The class name, by which the CLI and journals recognize the error. */
  override name = "RunConflictError";
}

/** An answer refused: not JSON, wrong suspension, fails its schema, already answered. */
export class AnswerRefusedError extends Error {
  /** The class name, by which the CLI and journals recognize the error. */
  override name = "AnswerRefusedError";
}

/** The executor lost its claim on the run (another executor took over). */
export class ExecutorLostError extends Error {
  /** The class name, by which the CLI and journals recognize the error. */
  override name = "ExecutorLostError";
}

/**
 * `export` refused: its target (not empty, not a directory, not writable) or
 * a path the host cannot create there. Nothing was written.
 */
export class ExportRefusedError extends Error {
  /** The class name, by which the CLI and journals recognize the error. */
  override name = "ExportRefusedError";
  /** The host's POSIX code, when the host refused (`ENAMETOOLONG`, `ENOTDIR`, …). */
  readonly code?: string;
  /** The Workspace path the host refused, when it was not the target itself. */
  readonly path?: string;

  /** A refused export saying `message`, with the host's `code` and the Workspace `path` when known. */
  constructor(message: string, options?: ErrorOptions & { code?: string; path?: string }) {
    super(message, options);
    this.code = options?.code;
    this.path = options?.path;
  }
}

/**
 * The shell stopped before its block ended, for a reason outside the document
 * (its process was killed or crashed). The block's effect is not journaled and
 * its changes are discarded; the run is left `interrupted`, to resume.
 */
export class ShellLostError extends Error {
  /** The class name, by which the CLI and journals recognize the error. */
  override name = "ShellLostError";
}

/** This process may not start the shell interpreter a document's exec blocks need. Nothing was created. */
export class WorkerShellPermissionError extends Error {
  /** The class name, by which the CLI and journals recognize the error. */
  override name = "WorkerShellPermissionError";
}

/** The runs folder cannot hold runs: it is not a directory, or the host refuses to create or read it. */
export class RunsFolderError extends Error {
  /** The class name, by which the CLI and journals recognize the error. */
  override name = "RunsFolderError";
}

/**
 * A host ran effects, or committed to a remote authority, over a SQL seam
 * that cannot hold a transaction across them (`SqlSeam.hold`): each
 * statement would commit on its own and the run's root would never move.
 * A wiring mistake of the host, refused before anything is written.
 */
export class HeldTransactionRequiredError extends Error {
  /** The class name, by which the CLI and journals recognize the error. */
  override name = "HeldTransactionRequiredError";
}
