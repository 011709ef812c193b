/**
 * The storage a journal is written to. Implementations make `append` durable
 * before it resolves (persist before resume) and parse every event they read.
 * A stream that keeps an effect's own writes together with its Yield (the
 * workflow executor's one transaction per Workspace effect) learns from the
 * journal where each live effect begins and ends (JRN-31). A stream whose
 * history may be too long to hold at once (a retained run's event table)
 * offers it in pieces (`history`), and the journal then holds one piece at a
 * time (JRN-80).
 *
 * @module
 */
import type { Description, JournalEvent } from "./events.ts";

/** A recorded history read in pieces: its length and last event, and any run of its events. */
export interface RecordedHistory {
  /** How many events are recorded. */
  readonly length: number;
  /** The last recorded event, parsed and validated (undefined when none is). */
  readonly last: JournalEvent | undefined;
  /**
   * Reads the events from index `from` (0-based) on, `count` of them or up to
   * the last, parsed and validated, in order.
   */
  read(from: number, count: number): Promise<JournalEvent[]>;
}

/** An append-only, durable list of journal events. */
export interface DurableStream {
  /** Reads every recorded event, parsed and validated, in order. */
  readAll(): Promise<JournalEvent[]>;
  /**
   * Opens the recorded history to be read in pieces instead of whole. When a
   * stream has it, a journal opened over it calls this, never `readAll`.
   */
  history?(): Promise<RecordedHistory>;
  /**
   * Appends one event; resolves only once it is durable. After
   * `beginEffect`, the next append is that effect's Yield, which ends it.
   */
  append(event: JournalEvent): Promise<void>;
  /**
   * Called right before a live effect runs (never for a replayed one, never
   * before a Close): what happens until its Yield is appended, or until
   * `abandonEffect`, belongs to that effect. A throw refuses the effect: it
   * does not run and nothing is appended.
   */
  beginEffect?(coroutineId: string, description: Description): void;
  /**
   * Called when the effect begun last ends without a durable Yield (its run
   * threw an error that is not journaled, the gate refused its Yield, or the
   * append failed, after which this is called too): what it did must not be
   * kept.
   */
  abandonEffect?(): void;
}
