/**
 * SHA-256 (FIPS 180-4), synchronous and runtime-neutral. Web Crypto's digest
 * is asynchronous, and awaiting it per replayed effect costs more than the
 * rest of the replay; descriptions and content addresses need a hash inline.
 *
 * @module
 */

// deno-fmt-ignore
const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

const encoder = new TextEncoder();
/** Each byte's two lowercase hex digits. */
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));
// Reused across calls: hashing is synchronous, so no two calls interleave.
const W = new Uint32Array(64);
// deno-fmt-ignore
const INITIAL = [
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];

/** Runs the compression function over the 64-byte blocks of `bytes[start, end)` into `h`. */
function compress(h: Uint32Array, bytes: Uint8Array, start: number, end: number): void {
  const w = W;
  for (let offset = start; offset < end; offset += 64) {
    for (let i = 0, j = offset; i < 16; i++, j += 4) {
      w[i] = (bytes[j] << 24) | (bytes[j + 1] << 16) | (bytes[j + 2] << 8) | bytes[j + 3];
    }
    for (let i = 16; i < 64; i++) {
      const a = w[i - 15];
      const b = w[i - 2];
      const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
      const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) | 0;
    }
    // Read one by one: destructuring the typed array runs its iterator, which kept V8 from
    // optimizing this loop as well (a 222 KB text took about four times as long once warm).
    let a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (let i = 0; i < 64; i++) {
      const s1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const choice = (e & f) ^ (~e & g);
      const t1 = (hh + s1 + choice + K[i] + w[i]) | 0;
      const s0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const majority = (a & b) ^ (a & c) ^ (b & c);
      const t2 = (s0 + majority) | 0;
      hh = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += hh;
  }
}

/**
 * Pads `tail`, the last bytes (fewer than 64) of a message of `length`
 * bytes, compresses them into `h` and returns the digest.
 */
function finish(h: Uint32Array, tail: Uint8Array, length: number): Uint8Array {
  const padded = new Uint8Array(((tail.length + 72) >>> 6) << 6);
  padded.set(tail);
  padded[tail.length] = 0x80;
  const view = new DataView(padded.buffer);
  const bitLength = length * 8;
  view.setUint32(padded.length - 8, Math.floor(bitLength / 0x100000000));
  view.setUint32(padded.length - 4, bitLength >>> 0);
  compress(h, padded, 0, padded.length);
  const out = new Uint8Array(32);
  const outView = new DataView(out.buffer);
  for (let i = 0; i < 8; i++) outView.setUint32(i * 4, h[i]);
  return out;
}

/** The SHA-256 digest of `data` (a string is hashed as UTF-8). */
export function sha256(data: Uint8Array | string): Uint8Array {
  const bytes = typeof data === "string" ? encoder.encode(data) : data;
  const whole = bytes.length & ~63;
  const h = new Uint32Array(INITIAL);
  compress(h, bytes, 0, whole);
  return finish(h, bytes.subarray(whole), bytes.length);
}

/** The SHA-256 digest of `data` as lowercase hex. */
export function sha256Hex(data: Uint8Array | string): string {
  return hex(sha256(data));
}

function hex(digest: Uint8Array): string {
  let text = "";
  for (let i = 0; i < digest.length; i++) text += HEX[digest[i]];
  return text;
}

/**
 * A SHA-256 fed in parts, whose state can be copied: a caller that keeps
 * copies taken at points of a long text hashes a changed version of it from
 * the last copy before the first change, instead of from its start.
 *
 * Invariant: the digest of the parts equals `sha256Hex` of their
 * concatenation. A string part is hashed as its UTF-8 bytes, so a text split
 * between the two halves of a surrogate pair is not the text (each half
 * encodes as U+FFFD): split strings between code points.
 *
 * @example Resuming from a copy
 * ```ts
 * import assert from "node:assert/strict";
 * import { Sha256Hasher, sha256Hex } from "@xmd/core/protocol";
 *
 * const prefix = new Sha256Hasher().update("a shared prefix, ");
 * const one = prefix.copy().update("then one ending").hex();
 * const other = prefix.copy().update("then another").hex();
 * assert.equal(one, sha256Hex("a shared prefix, then one ending"));
 * assert.equal(other, sha256Hex("a shared prefix, then another"));
 * ```
 */
export class Sha256Hasher {
  #h: Uint32Array;
  /** The bytes after the last whole block (fewer than 64). */
  #block: Uint8Array;
  #buffered: number;
  #length: number;

  /** A hasher with nothing hashed yet, or (for `copy`) in `from`'s state. */
  constructor(from?: Sha256Hasher) {
    this.#h = new Uint32Array(from ? from.#h : INITIAL);
    this.#block = new Uint8Array(64);
    this.#buffered = from ? from.#buffered : 0;
    this.#length = from ? from.#length : 0;
    if (from) this.#block.set(from.#block.subarray(0, from.#buffered));
  }

  /** Adds `data` (a string as its UTF-8 bytes) to the message; returns this hasher. */
  update(data: Uint8Array | string): this {
    const bytes = typeof data === "string" ? encoder.encode(data) : data;
    this.#length += bytes.length;
    let at = 0;
    if (this.#buffered > 0) {
      at = Math.min(64 - this.#buffered, bytes.length);
      this.#block.set(bytes.subarray(0, at), this.#buffered);
      this.#buffered += at;
      if (this.#buffered < 64) return this;
      compress(this.#h, this.#block, 0, 64);
      this.#buffered = 0;
    }
    const whole = at + ((bytes.length - at) & ~63);
    compress(this.#h, bytes, at, whole);
    this.#block.set(bytes.subarray(whole));
    this.#buffered = bytes.length - whole;
    return this;
  }

  /** An independent hasher in the same state. */
  copy(): Sha256Hasher {
    return new Sha256Hasher(this);
  }

  /** The digest of the message so far as lowercase hex; this hasher is left as it was. */
  hex(): string {
    const h = new Uint32Array(this.#h);
    return hex(finish(h, this.#block.subarray(0, this.#buffered), this.#length));
  }
}
