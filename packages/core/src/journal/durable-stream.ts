/**
 * The storage a journal is written to. Implementations make `append` durable
 * before it resolves (persist before resume) and parse every event they read.
 * A stream that keeps an effect's own writes together with its Yield (the
 * workflow executor's one transaction per Workspace effect) learns from the
 * journal where each live effect begins and ends (JRN-31).
 *
 * @module
 */
import type { Description, JournalEvent } from "./events.ts";

/** An append-only, durable list of journal events. */
export interface DurableStream {
  /** Reads every recorded event, parsed and validated, in order. */
  readAll(): Promise<JournalEvent[]>;
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
