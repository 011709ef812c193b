/**
 * The journal: replays a recorded prefix and records the live suffix.
 *
 * Invariants:
 * - Persist before resume: a live effect's Yield is durable (secret gate
 *   passed, stream append resolved) before its result is returned.
 * - Replay is strict: the next recorded event must be the effect or close the
 *   document asks for, else `DivergenceError` and nothing is appended.
 * - Fail-stop: after the first failed append every later effect and append
 *   is refused with `JournalStoppedError`; nothing compensating is written.
 * - A recorded `cancelled` Yield is an attempt that did not finish: replay
 *   skips it and runs the same effect again.
 * - A live effect is bracketed for the stream: `beginEffect` right before it
 *   runs, then its Yield's append or, when it ends without a durable Yield
 *   (its run threw, its Yield was refused or failed), `abandonEffect`. Effects run one at a time, so brackets never nest.
 * - The history's shape is checked before anything live: a root Close that
 *   is not last is `JournalFormatError`. A stream read whole is checked when
 *   the journal opens; a stream read in pieces (`DurableStream.history`,
 *   JRN-80) holds one piece of `HISTORY_PIECE` events at a time, each checked
 *   as it is read, and nothing live runs before the last piece is read.
 *
 * @module
 */
import type { SecretGate } from "../secret/mod.ts";
import type { DurableStream, RecordedHistory } from "./durable-stream.ts";
import type { Description, JournalEvent, Result } from "./events.ts";
import { DivergenceError, JournalFormatError, JournalStoppedError } from "./journal-errors.ts";

/** How many recorded events a journal over a paged stream reads, and holds, at a time. */
export const HISTORY_PIECE = 256;

/** empty: run live; truncated: replay then continue live; completed: replay only. */
export type JournalState = "empty" | "truncated" | "completed";

/** How an effect settled, and whether it came from the recorded history. */
export interface EffectSettlement {
  /** The result, recorded or live. */
  result: Result;
  /** Whether the result was replayed (no provider was called). */
  replayed: boolean;
}

/**
 * A journal over a durable stream.
 *
 * @example Recording one effect
 * ```ts ignore
 * const journal = await Journal.open(stream, gate);
 * const { result } = await journal.effect("root", { type: "file.write", name: "File doc.md:3:1" },
 *   async () => ({ status: "ok", value: null }));
 * await journal.close("root", { status: "ok", value: null });
 * ```
 */
export class Journal {
  readonly #stream: DurableStream;
  readonly #gate: SecretGate;
  readonly #history: RecordedHistory;
  /** The piece of the history held now, and the index of its first event. */
  #piece: readonly JournalEvent[] = [];
  #pieceStart = 0;
  #cursor = 0;
  #stopped: Error | undefined;

  private constructor(stream: DurableStream, gate: SecretGate, history: RecordedHistory) {
    this.#stream = stream;
    this.#gate = gate;
    this.#history = history;
  }

  /**
   * Opens the recorded history and checks its shape (the root Close, if any,
   * is last): all of it now when it is read whole, or piece by piece as it is
   * replayed when the stream offers it in pieces.
   */
  static async open(stream: DurableStream, gate: SecretGate): Promise<Journal> {
    if (stream.history) return new Journal(stream, gate, await stream.history());
    const recorded = await stream.readAll();
    checkShape(recorded, 0, recorded.length);
    return new Journal(stream, gate, {
      length: recorded.length,
      last: recorded[recorded.length - 1],
      read: (from, count) => Promise.resolve(recorded.slice(from, from + count)),
    });
  }

  /** The state the journal was opened in. */
  get state(): JournalState {
    const last = this.#history.last;
    if (!last) return "empty";
    return last.type === "close" && last.coroutineId === "root" ? "completed" : "truncated";
  }

  /** Whether recorded events remain to be replayed. */
  get replaying(): boolean {
    return this.#cursor < this.#history.length;
  }

  /** How many events have been replayed or appended so far. */
  get position(): number {
    return this.#cursor;
  }

  /**
   * Settles one effect: from the history when it is recorded there, else by
   * calling `run` and appending its Yield before returning.
   */
  async effect(
    coroutineId: string,
    description: Description,
    run: () => Promise<Result>,
  ): Promise<EffectSettlement> {
    while (this.#cursor < this.#history.length) {
      const event = this.#recordedAt(this.#cursor) ?? await this.#readPiece(this.#cursor);
      const number = this.#cursor + 1;
      if (event.type === "close") {
        throw new DivergenceError(
          "past-close",
          number,
          `records the end of coroutine ${event.coroutineId}, but the document goes on to "${description.name}"`,
        );
      }
      if (event.coroutineId !== coroutineId) {
        throw new DivergenceError(
          "coroutine",
          number,
          `belongs to coroutine ${event.coroutineId}, but the document asks for "${description.name}" in ${coroutineId}`,
        );
      }
      if (event.description.type !== description.type) {
        throw new DivergenceError(
          "type",
          number,
          `records a ${event.description.type} effect "${event.description.name}", but the document asks for a ${description.type} effect "${description.name}"`,
        );
      }
      if (event.description.name !== description.name) {
        throw new DivergenceError(
          "name",
          number,
          `records "${event.description.name}", but the document asks for "${description.name}"`,
        );
      }
      if (!sameDescription(event.description, description)) {
        throw description.type === "props"
          ? new DivergenceError(
            "input",
            number,
            `records "${event.description.name}" with other props than this run was given`,
            "The props differ from the recorded run; pass the same props it was given, or run without the journal",
          )
          : new DivergenceError(
            "input",
            number,
            `records "${event.description.name}" with other inputs than the document now gives it`,
          );
      }
      this.#cursor++;
      if (event.result.status === "cancelled") continue;
      return { result: event.result, replayed: true };
    }
    this.#checkLive();
    this.#stream.beginEffect?.(coroutineId, description);
    try {
      const result = await run();
      await this.#append({ type: "yield", coroutineId, description, result });
      return { result, replayed: false };
    } catch (error) {
      this.#stream.abandonEffect?.();
      throw error;
    }
  }

  /** Records (or checks against the history) the end of a coroutine. */
  async close(coroutineId: string, result: Result): Promise<void> {
    if (this.#cursor < this.#history.length) {
      const event = this.#recordedAt(this.#cursor) ?? await this.#readPiece(this.#cursor);
      const number = this.#cursor + 1;
      if (event.type === "yield") {
        throw new DivergenceError(
          "ended-early",
          number,
          `records "${event.description.name}", but the document ends coroutine ${coroutineId} there`,
        );
      }
      if (event.coroutineId !== coroutineId) {
        throw new DivergenceError(
          "coroutine",
          number,
          `records the end of coroutine ${event.coroutineId}, but the document ends ${coroutineId}`,
        );
      }
      if (!sameOutcome(event.result, result)) {
        throw new DivergenceError(
          "outcome",
          number,
          `records coroutine ${coroutineId} ending ${describe(event.result)}, but it now ends ${
            describe(result)
          }`,
        );
      }
      this.#cursor++;
      return;
    }
    this.#checkLive();
    await this.#append({ type: "close", coroutineId, result });
  }

  /** The recorded event at `index` if the piece held now has it. */
  #recordedAt(index: number): JournalEvent | undefined {
    return this.#piece[index - this.#pieceStart];
  }

  /** Replaces the piece held by the one starting at `index`, checked; returns its first event. */
  async #readPiece(index: number): Promise<JournalEvent> {
    const length = this.#history.length;
    const count = Math.min(HISTORY_PIECE, length - index);
    const piece = await this.#history.read(index, count);
    if (piece.length !== count) {
      throw new JournalFormatError(
        `Cannot read the journal: it records ${length} events, but event ${
          index + piece.length + 1
        } cannot be read`,
      );
    }
    checkShape(piece, index, length);
    this.#piece = piece;
    this.#pieceStart = index;
    return piece[0];
  }

  #checkLive(): void {
    if (this.#stopped) {
      throw new JournalStoppedError(
        "Cannot continue: an earlier journal append failed, so no later effect runs",
        { cause: this.#stopped },
      );
    }
  }

  async #append(event: JournalEvent): Promise<void> {
    try {
      const where = event.type === "yield"
        ? `journal event "${event.description.name}"`
        : `journal close of ${event.coroutineId}`;
      await this.#gate.check(JSON.stringify(event), where);
      await this.#stream.append(event);
      this.#cursor++;
    } catch (error) {
      this.#stopped = error as Error;
      throw error;
    }
  }
}

/**
 * Refuses a root Close in `events` (the history's events from index `start`,
 * of `length` in all) that is not the history's last event.
 */
function checkShape(events: readonly JournalEvent[], start: number, length: number): void {
  const rootClose = events.findIndex((event) =>
    event.type === "close" && event.coroutineId === "root"
  );
  if (rootClose >= 0 && start + rootClose !== length - 1) {
    throw new JournalFormatError(
      `Cannot read the journal: event ${
        start + rootClose + 2
      } follows the root close, which must be last`,
    );
  }
}

function sameDescription(recorded: Description, asked: Description): boolean {
  const keys = Object.keys(asked);
  if (Object.keys(recorded).length !== keys.length) return false;
  for (const key of keys) {
    const a = recorded[key];
    const b = asked[key];
    if (a === b) continue;
    if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
    if (JSON.stringify(a) !== JSON.stringify(b)) return false;
  }
  return true;
}

function sameOutcome(recorded: Result, now: Result): boolean {
  if (recorded.status !== now.status) return false;
  if (recorded.status === "err" && now.status === "err") {
    return recorded.error.name === now.error.name && recorded.error.message === now.error.message;
  }
  return true;
}

function describe(result: Result): string {
  return result.status === "err" ? `with ${result.error.name}` : result.status;
}
