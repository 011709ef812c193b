/**
 * Long texts are scanned in bounded, overlapping pieces. secretlint's rules
 * are regular expressions whose backtracking stack grows with what they
 * match, and past a few megabytes of one JSON string (an ordinary build log
 * in an event) the engine overflows its stack. Each piece holds at most
 * `PIECE` characters and starts `OVERLAP` characters before the previous one
 * ends, so any secret of at most `OVERLAP` characters lies wholly inside at
 * least one piece, wherever the boundaries fall.
 *
 * @module
 */

/** Characters in one piece. */
export const PIECE = 1024 * 1024;
/** Characters each piece shares with the next: longer than any secret the rules find. */
export const OVERLAP = 16 * 1024;

/** One piece of a text and where it starts in it. */
export interface Piece {
  /** Its index in the whole text. */
  readonly offset: number;
  /** The piece. */
  readonly text: string;
}

/** The pieces of `text`, in order: `text` itself when it fits in one. */
export function* pieces(text: string): Generator<Piece> {
  for (let offset = 0;; offset += PIECE - OVERLAP) {
    yield {
      offset,
      text: offset === 0 && text.length <= PIECE ? text : text.slice(offset, offset + PIECE),
    };
    if (offset + PIECE >= text.length) return;
  }
}
