/**
 * An in-memory journal stream: for `xmd run` without `--journal`, tests and
 * benchmarks. Events are parsed on read like any other stream.
 *
 * @module
 */
import type { DurableStream } from "./durable-stream.ts";
import { type JournalEvent, JournalEventSchema } from "./events.ts";

/** A `DurableStream` held in memory (durable only as long as the process). */
export class MemoryStream implements DurableStream {
  readonly #lines: string[];

  /** Starts with `events` already recorded. */
  constructor(events: readonly JournalEvent[] = []) {
    this.#lines = events.map((event) => JSON.stringify(event));
  }

  /** Every recorded event, parsed. */
  readAll(): Promise<JournalEvent[]> {
    return Promise.resolve(this.#lines.map((line) => JournalEventSchema.parse(JSON.parse(line))));
  }

  /** Records one event. */
  append(event: JournalEvent): Promise<void> {
    this.#lines.push(JSON.stringify(event));
    return Promise.resolve();
  }

  /** The recorded events, parsed. */
  get events(): JournalEvent[] {
    return this.#lines.map((line) => JournalEventSchema.parse(JSON.parse(line)));
  }
}
