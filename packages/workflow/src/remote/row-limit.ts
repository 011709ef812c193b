/**
 * The row limit of a remote run: no single stored value (an event, a
 * source, the props, an answer, a Workspace object) may exceed
 * `MAX_ROW_BYTES`, because a Durable Object refuses a row over 2 MB. The
 * check runs before any statement, so an oversized value is a named
 * refusal, not a storage failure half-way through a transaction.
 *
 * @module
 */
import { MAX_ROW_BYTES } from "./frames.ts";
import { RemoteProtocolError } from "./remote-protocol-error.ts";

const utf8 = new TextEncoder();

/** Refuses `text` when its UTF-8 is over the row limit; `what` names it. */
export function checkRow(text: string, what: string): void {
  // A string of n UTF-16 units is at most 3n UTF-8 bytes: most values need no encoding.
  if (text.length * 3 > MAX_ROW_BYTES && utf8.encode(text).length > MAX_ROW_BYTES) {
    throw new RemoteProtocolError(
      "limit.row",
      `Cannot store ${what}: it is over the ${MAX_ROW_BYTES}-byte row limit`,
    );
  }
}
