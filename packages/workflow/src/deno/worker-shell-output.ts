/**
 * One of a block's output streams, as its stream device receives it (see
 * worker-shell-streaming.ts), turned back into text chunk by chunk.
 *
 * `just-bash` writes a redirected group's output as a string with an
 * encoding name, but the name is not always right: a command's raw bytes
 * (one char per byte) can arrive named `utf8`, where writing them as UTF-8
 * would encode them twice (`é` would show as `Ã©`). So a chunk named `utf8`
 * whose chars are all bytes (≤ U+00FF), some of them not ASCII, and which
 * reads as valid UTF-8 ending on a whole character (after what came before)
 * is taken as bytes; any other `utf8` chunk is text. What this misreads:
 * text that is itself UTF-8 read as Latin-1 (a literal `Ã©` shows as `é`),
 * and a character whose bytes two statements print separately when the
 * chunks are named `utf8` (it shows as two Latin-1 characters).
 *
 * Invariant: a character split across two chunks written as bytes is shown
 * once, whole; one still incomplete when the block ends shows as U+FFFD.
 *
 * @module
 */
import { toBytes } from "./worker-shell-bytes.ts";

const encoder = new TextEncoder();

/** Whether some char of `text` (all ≤ U+00FF) is not ASCII. */
function isByteString(text: string): boolean {
  return /[\x80-\xff]/.test(text);
}

/** The length of `bytes` without an incomplete UTF-8 sequence at its end. */
function completeLength(bytes: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back];
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: look further back
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needed > back ? bytes.length - back : bytes.length;
  }
  return bytes.length;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  return joined;
}

/** One output stream's decoder. */
export class OutputDecoder {
  #pending: Uint8Array = new Uint8Array();
  readonly #strict = new TextDecoder("utf-8", { fatal: true });
  readonly #lenient = new TextDecoder();

  /** The text `content` (written with `encoding`) completes. */
  write(content: string | Uint8Array, encoding: BufferEncoding): string {
    const bytes = concat(this.#pending, this.#bytesOf(content, encoding));
    const complete = completeLength(bytes);
    this.#pending = bytes.slice(complete);
    return this.#lenient.decode(bytes.subarray(0, complete));
  }

  /** What is left when the block ends. */
  end(): string {
    const rest = this.#lenient.decode(this.#pending);
    this.#pending = new Uint8Array();
    return rest;
  }

  #bytesOf(content: string | Uint8Array, encoding: BufferEncoding): Uint8Array {
    if (typeof content !== "string") return content;
    // Chars beyond U+00FF are text, whatever the encoding's name.
    if (/[\u0100-\uffff]/.test(content)) return encoder.encode(content);
    const named = encoding === "utf8" || encoding === "utf-8";
    if (!named) return toBytes(content, encoding);
    if (!isByteString(content)) return encoder.encode(content);
    const raw = toBytes(content, "latin1");
    return this.#readsAsUtf8(raw) ? raw : encoder.encode(content);
  }

  /** Whether `raw`, after what is pending, is valid UTF-8 that ends on a whole character. */
  #readsAsUtf8(raw: Uint8Array): boolean {
    const bytes = concat(this.#pending, raw);
    if (completeLength(bytes) !== bytes.length) return false;
    try {
      this.#strict.decode(bytes);
      return true;
    } catch {
      return false;
    }
  }
}
