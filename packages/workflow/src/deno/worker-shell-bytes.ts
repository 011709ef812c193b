/**
 * Byte ⇄ string conversions at Worker Shell's filesystem boundary, as
 * `just-bash` expects them: its pipes carry bytes as "binary" strings (one
 * char per byte, `latin1`), while text reads and writes are UTF-8.
 *
 * Invariant: a file read with `binary` and written back with `binary` keeps
 * every byte; nothing is decoded on the way (so `cat`, redirections, `gzip`
 * and `tar` never re-encode a file's content).
 *
 * @module
 */

/** An encoding `just-bash` passes to a filesystem call, or its options object. */
export type EncodingOption = string | { encoding?: string | null } | null | undefined;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The encoding an option names; UTF-8 when none. */
export function encodingOf(option: EncodingOption): string {
  const name = typeof option === "string" ? option : option?.encoding;
  return (name ?? "utf8").toLowerCase();
}

/** The bytes of `content` written with `encoding`. */
export function toBytes(content: string | Uint8Array, encoding: string): Uint8Array {
  if (typeof content !== "string") return content;
  switch (encoding) {
    case "binary":
    case "latin1":
    case "ascii":
      return latin1Bytes(content);
    case "base64":
      return latin1Bytes(atob(content));
    case "hex": {
      const out = new Uint8Array(content.length >> 1);
      for (let i = 0; i < out.length; i++) out[i] = parseInt(content.slice(2 * i, 2 * i + 2), 16);
      return out;
    }
    default:
      return encoder.encode(content);
  }
}

/** `bytes` read as a string with `encoding`. */
export function fromBytes(bytes: Uint8Array, encoding: string): string {
  switch (encoding) {
    case "binary":
    case "latin1":
      return latin1String(bytes);
    case "ascii":
      return latin1String(bytes.map((byte) => byte & 0x7f));
    case "base64":
      return btoa(latin1String(bytes));
    case "hex":
      return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
    default:
      return decoder.decode(bytes);
  }
}

function latin1Bytes(text: string): Uint8Array {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
  return out;
}

/** Batches keep `String.fromCharCode` under engines' argument-count limits. */
const BATCH = 0x8000;

function latin1String(bytes: Uint8Array): string {
  const parts: string[] = [];
  for (let offset = 0; offset < bytes.length; offset += BATCH) {
    parts.push(String.fromCharCode(...bytes.subarray(offset, offset + BATCH)));
  }
  return parts.join("");
}
