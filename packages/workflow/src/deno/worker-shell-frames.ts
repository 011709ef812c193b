/**
 * Frames on Worker Shell's pipes: a u32 header length and a u32 payload
 * length (big-endian), the header as UTF-8 JSON, then the payload bytes.
 * File contents and output travel as payload, so bytes are never re-encoded
 * and a header stays small.
 *
 * Invariant: a reader yields whole frames in the order they were written, and
 * refuses (by throwing `FrameError`) a header or payload longer than its
 * bounds before buffering it; nothing of a refused frame is parsed.
 *
 * @module
 */

/** One frame: the parsed JSON header and its payload (empty when there is none). */
export interface Frame {
  /** The header, parsed JSON (not yet validated). */
  header: unknown;
  /** The payload bytes. */
  payload: Uint8Array;
}

/** The bounds a reader enforces. */
export interface FrameBounds {
  /** Longest header accepted, in bytes. */
  maxHeader: number;
  /** Longest payload accepted, in bytes. */
  maxPayload: number;
}

/** A frame that breaks the framing or its bounds: the stream cannot be trusted after it. */
export class FrameError extends Error {
  override name = "FrameError";
}

const PREFIX = 8;
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/** `header` and `payload` as one frame. */
export function encodeFrame(header: unknown, payload: Uint8Array = EMPTY): Uint8Array {
  const json = encoder.encode(JSON.stringify(header));
  const frame = new Uint8Array(PREFIX + json.length + payload.length);
  const view = new DataView(frame.buffer);
  view.setUint32(0, json.length);
  view.setUint32(4, payload.length);
  frame.set(json, PREFIX);
  frame.set(payload, PREFIX + json.length);
  return frame;
}

const EMPTY = new Uint8Array();

/** Reassembles frames from chunks of a byte stream. */
export class FrameReader {
  readonly #bounds: FrameBounds;
  #buffer = new Uint8Array(64 * 1024);
  #start = 0;
  #end = 0;

  /** A reader refusing frames beyond `bounds`. */
  constructor(bounds: FrameBounds) {
    this.#bounds = bounds;
  }

  /** Adds `chunk` and returns every frame it completes. */
  push(chunk: Uint8Array): Frame[] {
    this.#append(chunk);
    const frames: Frame[] = [];
    for (;;) {
      const available = this.#end - this.#start;
      if (available < PREFIX) break;
      const view = new DataView(this.#buffer.buffer, this.#start, PREFIX);
      const headerLength = view.getUint32(0);
      const payloadLength = view.getUint32(4);
      if (headerLength > this.#bounds.maxHeader || payloadLength > this.#bounds.maxPayload) {
        throw new FrameError(
          `A Worker Shell frame is over its bound (header ${headerLength} bytes, payload ${payloadLength} bytes)`,
        );
      }
      const total = PREFIX + headerLength + payloadLength;
      if (available < total) break;
      const at = this.#start + PREFIX;
      let header: unknown;
      try {
        header = JSON.parse(decoder.decode(this.#buffer.subarray(at, at + headerLength)));
      } catch {
        throw new FrameError("A Worker Shell frame's header is not JSON");
      }
      // A copy: the buffer is reused for the frames that follow.
      const payload = this.#buffer.slice(at + headerLength, at + headerLength + payloadLength);
      frames.push({ header, payload });
      this.#start += total;
    }
    if (this.#start === this.#end) this.#start = this.#end = 0;
    return frames;
  }

  #append(chunk: Uint8Array): void {
    if (this.#end + chunk.length > this.#buffer.length) {
      const live = this.#end - this.#start;
      const needed = live + chunk.length;
      const target = needed > this.#buffer.length
        ? new Uint8Array(Math.max(needed, this.#buffer.length * 2))
        : this.#buffer;
      if (target === this.#buffer) this.#buffer.copyWithin(0, this.#start, this.#end);
      else target.set(this.#buffer.subarray(this.#start, this.#end));
      this.#buffer = target;
      this.#start = 0;
      this.#end = live;
    }
    this.#buffer.set(chunk, this.#end);
    this.#end += chunk.length;
  }
}
