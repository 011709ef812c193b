/**
 * GNU sed's case conversions in a replacement (WS-159): `\U` and `\L` turn
 * what follows to upper or lower case until `\E` (or the other) or the
 * replacement's end, `\u` and `\l` the next character only. just-bash's
 * `sed` reads each as the letter (`s/h/\U&/` gave `Uhello`). The script's
 * reader (worker-shell-sed-script.ts) writes each as a marker, a character
 * of Unicode's private use area, and ends each replacement holding one with
 * an end marker; just-bash's `sed` copies them into its output as any other
 * text, and its output (stdout, and each file it edits in place) is then
 * converted here and the markers removed.
 *
 * Invariants:
 * - Only text between markers changes; bytes outside them are copied as
 *   they are, even when they are not UTF-8.
 * - A later command of the same script sees the text before conversion,
 *   with its markers (`s/x/\U&/; /X/d` deletes nothing); so do `w` files.
 *
 * @module
 */

/** The markers, in the order `\U`, `\L`, `\u`, `\l`, `\E`, then the replacement's end. */
const FIRST = 0xe000;
const MARKERS = "ULulE";
const END = String.fromCharCode(FIRST + MARKERS.length);

/** The marker for `\<letter>` in a replacement, or undefined when it is no conversion. */
export function caseMarker(letter: string): string | undefined {
  const index = MARKERS.indexOf(letter);
  return index < 0 || letter === "" ? undefined : String.fromCharCode(FIRST + index);
}

/** The marker that ends a replacement holding conversions. */
export const CASE_END = END;

const MARKER = /[\ue000-\ue005]/;

function convert(char: string, how: "upper" | "lower" | undefined): string {
  if (how === "upper") return char.toUpperCase();
  if (how === "lower") return char.toLowerCase();
  return char;
}

/** `text` with its conversions made and its markers removed. */
export function convertCase(text: string): string {
  if (!MARKER.test(text)) return text;
  let out = "";
  let mode: "upper" | "lower" | undefined;
  let next: "upper" | "lower" | undefined;
  for (const char of text) {
    const code = char.charCodeAt(0);
    if (code >= FIRST && code <= FIRST + MARKERS.length) {
      switch (MARKERS[code - FIRST]) {
        // As GNU's: `\U`, `\L` and `\E` cancel a `\u` or `\l` before them.
        case "U":
          mode = "upper";
          next = undefined;
          break;
        case "L":
          mode = "lower";
          next = undefined;
          break;
        case "u":
          next = "upper";
          break;
        case "l":
          next = "lower";
          break;
        default:
          // `\E`, or the replacement's end.
          mode = undefined;
          next = undefined;
      }
      continue;
    }
    if (next !== undefined) {
      out += convert(char, next);
      next = undefined;
    } else {
      out += convert(char, mode);
    }
  }
  return out;
}

/** A marker's UTF-8 bytes: EE 80 80 to EE 80 85. */
function isMarkerAt(bytes: Uint8Array, at: number): boolean {
  return bytes[at] === 0xee && bytes[at + 1] === 0x80 && bytes[at + 2] >= 0x80 &&
    bytes[at + 2] <= 0x85;
}

/**
 * `bytes` with their conversions made and markers removed: each run from a
 * marker to the end marker after it is decoded, converted and encoded; the
 * bytes between such runs are kept as they are.
 */
export function convertCaseInBytes(bytes: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [];
  let kept = 0;
  let at = 0;
  while (at < bytes.length) {
    if (!isMarkerAt(bytes, at)) {
      at++;
      continue;
    }
    parts.push(bytes.subarray(kept, at));
    // The run ends after the next end marker (or at the end).
    let end = at;
    while (end < bytes.length && !(isMarkerAt(bytes, end) && bytes[end + 2] === 0x85)) end++;
    end = Math.min(bytes.length, end + 3);
    const run = new TextDecoder().decode(bytes.subarray(at, end));
    parts.push(new TextEncoder().encode(convertCase(run)));
    kept = at = end;
  }
  if (parts.length === 0) return bytes;
  parts.push(bytes.subarray(kept));
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** A byte string (one character a byte) with its conversions made, as {@linkcode convertCaseInBytes}. */
export function convertCaseInByteString(text: string): string {
  if (!text.includes("\xee\x80")) return text;
  const bytes = Uint8Array.from(text, (char) => char.charCodeAt(0));
  const converted = convertCaseInBytes(bytes);
  if (converted === bytes) return text;
  let out = "";
  for (const byte of converted) out += String.fromCharCode(byte);
  return out;
}
