/**
 * The journal's refusals. None of them is ever journaled: they stop the run
 * (fail-stop) and leave the stream as it was.
 *
 * @module
 */
import { XmdError } from "../errors/xmd-error.ts";

/** The kinds of divergence between a recorded history and the document. */
export type DivergenceKind =
  | "coroutine" // the next recorded event belongs to another coroutine
  | "type" // same position, different effect type
  | "name" // different effect (its name carries its source position)
  | "input" // same effect, different inputs
  | "ended-early" // the document closes where the journal records more effects
  | "past-close" // the document asks for an effect where the journal records a close
  | "outcome"; // the coroutine ends differently than recorded

/**
 * The document no longer matches its recorded history. Nothing is appended.
 */
export class DivergenceError extends XmdError {
  /** The class name, which journals record. */
  override name = "DivergenceError";
  /** Its stable code. */
  readonly code = "journal.divergence";
  /** What differs. */
  readonly kind: DivergenceKind;
  /** 1-based index of the recorded event that differs. */
  readonly eventNumber: number;

  /** The first difference, of `kind`, at recorded event `eventNumber`. */
  constructor(
    kind: DivergenceKind,
    eventNumber: number,
    detail: string,
    remedy =
      "The document changed since the journal was written; run it without the journal or restore the document",
  ) {
    super(`Cannot replay the journal: event ${eventNumber} ${detail}. ${remedy}`);
    this.kind = kind;
    this.eventNumber = eventNumber;
  }
}

/** A journal file or stream could not be read: malformed content, named by line, never echoed. */
export class JournalFormatError extends XmdError {
  /** The class name, which journals record. */
  override name = "JournalFormatError";
  /** Its stable code. */
  readonly code = "journal.format";
}

/** An append failed; the journal refuses every later effect and append (fail-stop). */
export class JournalStoppedError extends XmdError {
  /** The class name, which journals record. */
  override name = "JournalStoppedError";
  /** Its stable code. */
  readonly code = "journal.stopped";
}

/** A journal could not be written (a missing folder, a full disk). The run stops (fail-stop). */
export class JournalWriteError extends XmdError {
  /** The class name, which journals record. */
  override name = "JournalWriteError";
  /** Its stable code. */
  readonly code = "journal.write";
}
