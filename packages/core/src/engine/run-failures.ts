/**
 * The ways a run stops short. A checked failure (a document problem found
 * while running, or an effect's recorded error) is journaled in the root
 * Close and replays identically; a cancellation stops without a Close.
 *
 * @module
 */
import { XmdError } from "../errors/xmd-error.ts";
import { formatPosition, type SourcePosition } from "../document/source-position.ts";
import type { ErrorRecord } from "../journal/events.ts";

/** An effect settled with an error: live or replayed, it is the same error. */
export class EffectFailure extends XmdError {
  /** The class name, which journals record. */
  override name = "EffectFailure";
  /** Its stable code. */
  readonly code = "effect.failed";
  /** The recorded error (its name is the original class name, e.g. `FileSystemError`). */
  readonly record: ErrorRecord;

  /** The recorded error `record` of the effect at `position`. */
  constructor(record: ErrorRecord, position: SourcePosition) {
    super(`${formatPosition(position)}: ${record.message}`);
    this.record = record;
  }
}

/** The run was cancelled (Ctrl-C); the current effect was journaled as `cancelled`. */
export class CancelledError extends XmdError {
  /** The class name, which journals record. */
  override name = "CancelledError";
  /** Its stable code. */
  readonly code = "run.cancelled";

  constructor() {
    super("Cancelled");
  }
}

/** The run reached an `<Elicit>` with no answer under a suspending provider; its request is journaled. */
export class SuspendedError extends XmdError {
  /** The class name, which journals record. */
  override name = "SuspendedError";
  /** Its stable code. */
  readonly code = "run.suspended";
  /** The suspension to answer. */
  readonly suspensionId: string;
  /** The 1-based journal event number of the `suspension_request`. */
  readonly eventNumber: number;

  /** A run suspended on `suspensionId`, requested at journal event `eventNumber`. */
  constructor(suspensionId: string, eventNumber: number) {
    super(`Suspended on ${suspensionId}`);
    this.suspensionId = suspensionId;
    this.eventNumber = eventNumber;
  }
}
