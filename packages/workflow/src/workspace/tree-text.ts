/**
 * A directory's tree object held as its text, patched name by name: a
 * changed entry is spliced into the previous text instead of the whole
 * listing being serialized again, so rebuilding a tree after one change
 * copies its text once (when it is hashed, which leaves the spliced string
 * flat for the next change) rather than joining every entry.
 *
 * Invariants:
 * - `text` is the tree object's canonical text (`treeObjectOf`): its entries'
 *   canonical JSON (`[name,kind,mode,ref]`) in UTF-8 order of their names,
 *   joined by commas; entry _k_ starts at `offsets[k]` and ends before the
 *   comma that precedes entry _k + 1_ (or before the array's end).
 * - A `TreeText` is never changed once built; `PatchedTreeText` patches its
 *   own copies of the arrays, so the tree it started from stays valid.
 * - `PatchedTreeText.unchanged` is a length the patched text and the text it
 *   started from share as a prefix (every patch so far is at or after it),
 *   so a hash of that prefix saved for the old text holds for the new one.
 *
 * @module
 */
import { treeObjectOf } from "./root-format.ts";
import { compareUtf8 } from "./workspace.ts";

/** A tree's sorted names, its object's text and where each entry starts in it. */
export interface TreeText {
  /** The names, in UTF-8 order. */
  readonly names: readonly string[];
  /** The tree object's canonical text. */
  readonly text: string;
  /** Where each entry starts in `text`. */
  readonly offsets: readonly number[];
}

const EMPTY = treeObjectOf("[]");
/** Where the entries begin in a tree object's text, and what follows them. */
const HEAD = EMPTY.indexOf("[]") + 1;
const TAIL = EMPTY.length - HEAD;

/** The `TreeText` of entries given as canonical JSON, in order of their (sorted) names. */
export function treeTextOf(names: readonly string[], entries: readonly string[]): TreeText {
  const offsets: number[] = [];
  let at = HEAD;
  for (const entry of entries) {
    offsets.push(at);
    at += entry.length + 1;
  }
  return { names, text: treeObjectOf(`[${entries.join(",")}]`), offsets };
}

/** A copy of a `TreeText` being patched. */
export class PatchedTreeText {
  #names: string[];
  #offsets: number[];
  #text: string;
  #unchanged: number;

  constructor(from: TreeText) {
    this.#names = [...from.names];
    this.#offsets = [...from.offsets];
    this.#text = from.text;
    this.#unchanged = from.text.length;
  }

  /**
   * How many characters at the start are the same as in the tree it started
   * from: a patch at a position leaves the text before it as it was.
   */
  get unchanged(): number {
    return this.#unchanged;
  }

  /** Entry `name`'s canonical JSON, or undefined when there is none. */
  entry(name: string): string | undefined {
    const [at, found] = this.#search(name);
    return found ? this.#text.slice(this.#offsets[at], this.#end(at)) : undefined;
  }

  /** Sets entry `name` (its canonical JSON `entry`), adding or replacing it. */
  set(name: string, entry: string): void {
    const [at, found] = this.#search(name);
    const count = this.#names.length;
    if (found) {
      const start = this.#offsets[at];
      const end = this.#end(at);
      this.#changedFrom(start);
      this.#text = this.#text.slice(0, start) + entry + this.#text.slice(end);
      this.#shift(at + 1, entry.length - (end - start));
      return;
    }
    this.#names.splice(at, 0, name);
    if (count === 0) {
      this.#offsets.push(HEAD);
      this.#changedFrom(HEAD);
      this.#text = this.#text.slice(0, HEAD) + entry + this.#text.slice(HEAD);
    } else if (at === count) {
      const end = this.#text.length - TAIL;
      this.#offsets.push(end + 1);
      this.#changedFrom(end);
      this.#text = `${this.#text.slice(0, end)},${entry}${this.#text.slice(end)}`;
    } else {
      const start = this.#offsets[at];
      this.#offsets.splice(at, 0, start);
      this.#changedFrom(start);
      this.#text = `${this.#text.slice(0, start)}${entry},${this.#text.slice(start)}`;
      this.#shift(at + 1, entry.length + 1);
    }
  }

  /** Removes entry `name` if there is one. */
  remove(name: string): void {
    const [at, found] = this.#search(name);
    if (!found) return;
    const count = this.#names.length;
    const start = this.#offsets[at];
    this.#names.splice(at, 1);
    this.#offsets.splice(at, 1);
    if (count === 1) {
      this.#changedFrom(start);
      this.#text = this.#text.slice(0, start) + this.#text.slice(this.#text.length - TAIL);
    } else if (at === count - 1) {
      // The last entry goes with the comma before it.
      const end = this.#text.length - TAIL;
      this.#changedFrom(start - 1);
      this.#text = this.#text.slice(0, start - 1) + this.#text.slice(end);
    } else {
      const next = this.#offsets[at];
      this.#changedFrom(start);
      this.#text = this.#text.slice(0, start) + this.#text.slice(next);
      this.#shift(at, start - next);
    }
  }

  /** The patched tree. */
  done(): TreeText {
    return { names: this.#names, text: this.#text, offsets: this.#offsets };
  }

  #changedFrom(at: number): void {
    if (at < this.#unchanged) this.#unchanged = at;
  }

  #end(at: number): number {
    return at + 1 < this.#offsets.length ? this.#offsets[at + 1] - 1 : this.#text.length - TAIL;
  }

  #shift(from: number, by: number): void {
    for (let i = from; i < this.#offsets.length; i++) this.#offsets[i] += by;
  }

  /** Where `name` is, or would be inserted, in UTF-8 order; and whether it is there. */
  #search(name: string): [number, boolean] {
    const names = this.#names;
    let low = 0;
    let high = names.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      const order = compareUtf8(names[middle], name);
      if (order === 0) return [middle, true];
      if (order < 0) low = middle + 1;
      else high = middle;
    }
    return [low, false];
  }
}
