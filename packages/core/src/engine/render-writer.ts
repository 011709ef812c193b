/**
 * The rendered-document writer. Elements that print nothing leave their
 * surrounding blank lines behind; the writer defers newlines so that output
 * never starts with blank lines, never holds more than one blank line in a
 * row from the document's own text, and ends with exactly one newline.
 * Shell output is written raw: its own blank lines are kept. A shell
 * output's line ends as it is written: one newline after raw text is written
 * at once (whatever follows, at least one newline comes next, or the
 * output's last), so a long block's line shows whole while it runs.
 *
 * @module
 */

/**
 * The most UTF-16 code units captured text (`<Let>` children, `<File>`
 * content, an `<Elicit>` question) may hold: 64 MiB of ASCII, well below what
 * a JavaScript string can hold, so text that doubles itself is refused as the
 * document's mistake rather than exhausting memory.
 */
export const MAX_CAPTURED_LENGTH = 64 * 1024 * 1024;

/** Writes rendered text to a sink, normalizing blank lines. */
export class RenderWriter {
  readonly #sink: (text: string) => void;
  // Deferred newlines, kept apart by origin: the document's own collapse to one
  // blank line, a shell block's are its output and are kept. Summing them
  // per origin makes the output independent of how a block's output is chunked.
  #pendingText = 0;
  #pendingRaw = 0;
  #started = false;
  #separator: number | undefined;
  // Of the deferred newlines, how many were already written (0 or 1), and whether one may be.
  #written = 0;
  readonly #eager: boolean;

  /**
   * `sink` receives the normalized text as it is produced; `eager: false`
   * (captured text, which ends without newlines) writes no deferred newline
   * before it is sure to follow.
   */
  constructor(sink: (text: string) => void, { eager = true }: { eager?: boolean } = {}) {
    this.#sink = sink;
    this.#eager = eager;
  }

  /** Writes document text: runs of blank lines collapse to one. */
  write(text: string): void {
    this.#emit(text, false);
  }

  /** Writes shell output verbatim (only leading newlines of the whole document are dropped). */
  raw(text: string): void {
    this.#emit(text, true);
  }

  /**
   * Separates what comes next from what came before by exactly `newlines`
   * newlines, whatever blank lines the surrounding text leaves (loop
   * iterations). Nothing is written if nothing follows; `undefined` withdraws
   * a separator that nothing followed.
   */
  separate(newlines: number | undefined): void {
    this.#separator = newlines;
  }

  /** Ends the output with one newline if anything was written. */
  end(): void {
    if (this.#started && this.#written === 0) this.#sink("\n");
    this.#pendingText = 0;
    this.#pendingRaw = 0;
    this.#written = 0;
  }

  #emit(text: string, raw: boolean): void {
    if (text === "") return;
    const trimmedEnd = text.replace(/\n+$/, "");
    const trailing = text.length - trimmedEnd.length;
    if (trimmedEnd === "") {
      if (raw) this.#pendingRaw += trailing;
      else this.#pendingText += trailing;
      return;
    }
    const leadingMatch = /^\n*/.exec(trimmedEnd)![0].length;
    const body = trimmedEnd.slice(leadingMatch);
    // Separators between parts never exceed one blank line; raw text keeps its own.
    const newlines = this.#separator ??
      (raw
        ? Math.min(this.#pendingText, 2) + this.#pendingRaw + leadingMatch
        : Math.min(this.#pendingText + this.#pendingRaw + leadingMatch, 2));
    this.#separator = undefined;
    // At least one newline follows raw text that ended with one (a separator is 1 or 2).
    let out = this.#started ? "\n".repeat(newlines - this.#written) : "";
    out += raw ? body : body.replace(/\n{3,}/g, "\n\n");
    this.#written = raw && trailing > 0 && this.#eager ? 1 : 0;
    if (this.#written === 1) out += "\n";
    this.#sink(out);
    this.#started = true;
    this.#pendingText = raw ? 0 : trailing;
    this.#pendingRaw = raw ? trailing : 0;
  }
}

/** A writer that collects its text (for `<Let>` children, `<File>` content, questions). */
export class CaptureWriter extends RenderWriter {
  #text = "";

  /** Collects text; `tooLong` is thrown, before anything is added, when it would pass `MAX_CAPTURED_LENGTH`. */
  constructor(tooLong: () => Error) {
    super((text) => {
      if (this.#text.length + text.length > MAX_CAPTURED_LENGTH) throw tooLong();
      this.#text += text;
    }, { eager: false });
  }

  /** The captured text, without leading or trailing newlines. */
  get text(): string {
    return this.#text;
  }
}
