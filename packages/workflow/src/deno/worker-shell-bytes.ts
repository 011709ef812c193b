/**
 * Byte ⇄ string conversions at Worker Shell's filesystem boundary, as
 * `just-bash` expects them: its pipes carry bytes as "binary" strings (one
 * char per byte, `latin1`), while text reads and writes are UTF-8; the
 * encoding names are Node's.
 *
 * Invariant: a file read with `binary` and written back with `binary` keeps
 * every byte; nothing is decoded on the way (so `cat`, redirections, `gzip`
 * and `tar` never re-encode a file's content).
 *
 * @module
 */
import { Buffer } from "node:buffer";

/** An encoding `just-bash` passes to a filesystem call, or its options object. */
export type EncodingOption = string | { encoding?: string | null } | null | undefined;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The encoding an option names (Node's names); UTF-8 when none. */
export function encodingOf(option: EncodingOption): BufferEncoding {
  const name = typeof option === "string" ? option : option?.encoding;
  return (name ?? "utf8").toLowerCase() as BufferEncoding;
}

/** The bytes of `content` written with `encoding`. */
export function toBytes(content: string | Uint8Array, encoding: BufferEncoding): Uint8Array {
  if (typeof content !== "string") return content;
  if (encoding === "utf8" || encoding === "utf-8") return encoder.encode(content);
  // A copy: a small Buffer is a view of a shared pool, and the host gets exactly these bytes.
  return new Uint8Array(Buffer.from(content, encoding));
}

/** `bytes` read as a string with `encoding`. */
export function fromBytes(bytes: Uint8Array, encoding: BufferEncoding): string {
  if (encoding === "utf8" || encoding === "utf-8") return decoder.decode(bytes);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString(encoding);
}
