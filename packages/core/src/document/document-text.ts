/**
 * The text of a document as the engine sees it: without a leading byte-order
 * mark (U+FEFF, `EF BB BF` in UTF-8).
 *
 * Invariant: parsing, rendering by source slicing, retained sources and the
 * definition hash all see the same text. micromark skips a leading BOM when it
 * tokenizes but reports offsets into the text it skipped, so a document that
 * kept its BOM would have every source slice shifted by one character.
 *
 * @module
 */

const BYTE_ORDER_MARK = "\uFEFF";

/** `text` without its leading byte-order mark, if it has one; anything else is unchanged. */
export function documentText(text: string): string {
  return text.startsWith(BYTE_ORDER_MARK) ? text.slice(BYTE_ORDER_MARK.length) : text;
}
