/**
 * Reading the header of a SQLite wal-index (`<db>-shm`) as bytes: how many
 * frames of the write-ahead log the last writer had committed, and how many
 * of them were already copied into the database (sqlite.org/walformat.html,
 * the unix and windows VFS; the header is in the host's byte order).
 *
 * A process killed with SIGKILL leaves its wal-index behind, so it is the
 * one witness of committed frames that a truncated, damaged or deleted log
 * no longer holds.
 *
 * Invariants:
 * - The file is only read, never written, locked or created.
 * - It is read with synchronous calls: a few bytes of a local file, where
 *   each asynchronous call would be a round trip through the runtime's
 *   thread pool (most of what recognizing a run at rest cost).
 * - A header is trusted only when its two copies are identical, it is
 *   initialized and its checksum verifies; anything else (no file, a writer
 *   half-way through an update, a file from another format) is `undefined`:
 *   nothing is concluded from it.
 *
 * @module
 */

const HEADER_BYTES = 48;
const CHECKPOINT_INFO_BYTES = 40;
const FORMAT_VERSION = 3007000;
const HOST_LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** What a wal-index says about its write-ahead log. */
export interface WalIndex {
  /** The header bytes as read (two copies and the checkpoint information). */
  bytes: Uint8Array;
  /** Frames of the log that were committed when the index was last written. */
  committedFrames: number;
  /** Frames already copied into the database by a checkpoint. */
  backfilledFrames: number;
  /** The log header's salt bytes (8) the index describes. */
  salts: Uint8Array;
}

/** Reads the wal-index at `path`, or `undefined` when there is none to trust. */
export function readWalIndex(path: string): WalIndex | undefined {
  let bytes: Uint8Array;
  try {
    using file = Deno.openSync(path, { read: true });
    bytes = new Uint8Array(2 * HEADER_BYTES + CHECKPOINT_INFO_BYTES);
    let read = 0;
    while (read < bytes.length) {
      const n = file.readSync(bytes.subarray(read));
      if (n === null) return undefined;
      read += n;
    }
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
  const view = new DataView(bytes.buffer);
  const le = HOST_LITTLE_ENDIAN;
  for (let offset = 0; offset < HEADER_BYTES; offset++) {
    if (bytes[offset] !== bytes[HEADER_BYTES + offset]) return undefined;
  }
  if (view.getUint32(0, le) !== FORMAT_VERSION || bytes[12] !== 1) return undefined;
  let s0 = 0;
  let s1 = 0;
  for (let offset = 0; offset < 40; offset += 8) {
    s0 = (s0 + view.getUint32(offset, le) + s1) >>> 0;
    s1 = (s1 + view.getUint32(offset + 4, le) + s0) >>> 0;
  }
  if (s0 !== view.getUint32(40, le) || s1 !== view.getUint32(44, le)) return undefined;
  return {
    bytes,
    committedFrames: view.getUint32(16, le),
    backfilledFrames: view.getUint32(2 * HEADER_BYTES, le),
    salts: bytes.slice(32, 40),
  };
}
