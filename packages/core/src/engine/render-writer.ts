/**
 * The rendered-document writer. Elements that print nothing leave their
 * surrounding blank lines behind; the writer defers newlines so that output
 * never starts with blank lines, never holds more than one blank line in a
 * row from the document's own text, and ends with exactly one newline.
 * Shell output is written raw: its own blank lines are kept.
 *
 * @module
 */

/** Writes rendered text to a sink, normalizing blank lines. */
export class RenderWriter {
  readonly #sink: (text: string) => void;
  #pending = 0;
  #started = false;

  /** `sink` receives the normalized text as it is produced. */
  constructor(sink: (text: string) => void) {
    this.#sink = sink;
  }

  /** Writes document text: runs of blank lines collapse to one. */
  write(text: string): void {
    this.#emit(text, 2);
  }

  /** Writes shell output verbatim (only leading newlines of the whole document are dropped). */
  raw(text: string): void {
    this.#emit(text, Infinity);
  }

  /** Ends the output with one newline if anything was written. */
  end(): void {
    if (this.#started) this.#sink("\n");
    this.#pending = 0;
  }

  #emit(text: string, maxNewlines: number): void {
    if (text === "") return;
    const trimmedEnd = text.replace(/\n+$/, "");
    const trailing = text.length - trimmedEnd.length;
    if (trimmedEnd === "") {
      this.#pending += trailing;
      return;
    }
    const leadingMatch = /^\n*/.exec(trimmedEnd)![0].length;
    const body = trimmedEnd.slice(leadingMatch);
    // Separators between parts never exceed one blank line; raw text keeps its own.
    const newlines = maxNewlines === 2
      ? Math.min(this.#pending + leadingMatch, 2)
      : Math.min(this.#pending, 2) + leadingMatch;
    let out = this.#started ? "\n".repeat(newlines) : "";
    out += maxNewlines === 2 ? body.replace(/\n{3,}/g, "\n\n") : body;
    this.#sink(out);
    this.#started = true;
    this.#pending = trailing;
  }
}

/** A writer that collects its text (for `<Let>` children, `<File>` content, questions). */
export class CaptureWriter extends RenderWriter {
  #text = "";

  constructor() {
    super((text) => this.#text += text);
  }

  /** The captured text, without leading or trailing newlines. */
  get text(): string {
    return this.#text;
  }
}
