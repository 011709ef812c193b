/**
 * `xmd workflow history --json`, written as the history arrives: the text is
 * what `JSON.stringify({...inspectionJson(history), events}, null, 2)`
 * gives, byte for byte, but only one page of events is held at a time.
 *
 * Invariants:
 * - Each event is `{id, at, root, ...event}`, as the whole-history form.
 * - Nothing is written before the inspection; the closing text is written
 *   by `end()`, so an output cut short by a failed read is not valid JSON.
 *
 * @module
 */
import type { HistoryEvent, HistorySink, RunInspection } from "@xmd/workflow";
import { inspectionJson } from "./workflow-format.ts";

/** The JSON form of one event in the `events` array. */
export function historyEventJson({ id, at, root, event }: HistoryEvent) {
  return { id, at, root, ...event };
}

/** A sink writing `history --json` to `write`; call `end()` after the last page. */
export class HistoryJsonWriter implements HistorySink {
  readonly #write: (text: string) => void;
  #events = 0;

  constructor(write: (text: string) => void) {
    this.#write = write;
  }

  inspection(inspection: RunInspection): void {
    // `events` is the last key (an inspection has no field of that name): its empty array and the
    // closing brace are cut, and written by `events` and `end`.
    const whole = JSON.stringify({ ...inspectionJson(inspection), events: [] }, null, 2);
    this.#write(whole.slice(0, -"[]\n}".length));
  }

  events(page: readonly HistoryEvent[]): void {
    let text = "";
    for (const entry of page) {
      text += (this.#events++ === 0 ? "[\n" : ",\n") +
        JSON.stringify(historyEventJson(entry), null, 2).replaceAll(/^/gm, "    ");
    }
    this.#write(text);
  }

  /** Closes the array and the object. */
  end(): void {
    this.#write(this.#events === 0 ? "[]\n}\n" : "\n  ]\n}\n");
  }
}
