/**
 * The storage a journal is written to. Implementations make `append` durable
 * before it resolves (persist before resume) and parse every event they read.
 *
 * @module
 */
import type { JournalEvent } from "./events.ts";

/** An append-only, durable list of journal events. */
export interface DurableStream {
  /** Reads every recorded event, parsed and validated, in order. */
  readAll(): Promise<JournalEvent[]>;
  /** Appends one event; resolves only once it is durable. */
  append(event: JournalEvent): Promise<void>;
}
