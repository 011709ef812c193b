/**
 * Reading a SQLite write-ahead log (`<db>-wal`) as bytes, before SQLite opens
 * it, to know what SQLite will make of it (the WAL format of
 * sqlite.org/fileformat2.html, section 4).
 *
 * SQLite applies the frames that verify (salts equal to the header's, a
 * cumulative checksum that matches) up to the last commit frame among them,
 * and silently ignores everything from the first frame that does not verify.
 * That is right for a torn last transaction and wrong for damage: a frame that
 * fails with a verifying commit frame after it means committed transactions
 * SQLite would drop.
 *
 * Invariants:
 * - The file is only read, frame by frame (memory stays bounded by a batch of
 *   frames), never written, locked or created.
 * - It is read with synchronous calls, as the checksums are computed: a log
 *   at rest is absent or small, and each asynchronous call would be a round
 *   trip through the runtime's thread pool.
 * - `damage` is set only on proof that committed frames would be ignored: a
 *   header that does not verify with frame bytes after it, or a frame that
 *   does not verify followed by a commit frame that does (each frame is
 *   checked against the checksum its writer chained from, the previous
 *   frame's stored one). A torn tail (frames that fail with no verifying
 *   commit frame after them, a partial last frame) is not damage.
 *
 * @module
 */

const WAL_HEADER_BYTES = 32;
const FRAME_HEADER_BYTES = 24;
const MAGIC_LITTLE_ENDIAN = 0x377f0682;
const MAGIC_BIG_ENDIAN = 0x377f0683;
const FORMAT_VERSION = 3007000;
/** Frames read per `read` call: bounded memory, few calls. */
const BATCH_FRAMES = 64;

/** What a write-ahead log holds, as SQLite will read it. */
export interface WalScan {
  /** Its size in bytes (0 when there is no file). */
  size: number;
  /** The header's salt bytes (8), or null when the header does not verify. */
  salts: Uint8Array | null;
  /** Frames SQLite applies: the verifying prefix up to its last commit frame. */
  committedFrames: number;
  /** Complete frames SQLite ignores because they do not verify (torn, stale or damaged). */
  unverifiedFrames: number;
  /** Why committed frames would be ignored, or null. */
  damage: string | null;
}

/** Scans the write-ahead log at `path` of a database whose page size is `pageSize`. */
export function scanWal(path: string, pageSize: number): WalScan {
  let file: Deno.FsFile;
  try {
    file = Deno.openSync(path, { read: true });
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      return { size: 0, salts: null, committedFrames: 0, unverifiedFrames: 0, damage: null };
    }
    throw error;
  }
  try {
    const size = file.statSync().size;
    const header = readFully(file, new Uint8Array(Math.min(size, WAL_HEADER_BYTES)));
    const frameBytes = FRAME_HEADER_BYTES + pageSize;
    const frames = size < WAL_HEADER_BYTES ? 0 : Math.floor((size - WAL_HEADER_BYTES) / frameBytes);
    const checked = checkHeader(header, pageSize);
    if (typeof checked === "string") {
      // SQLite reads such a log as empty: any frame in it is lost.
      return {
        size,
        salts: null,
        committedFrames: 0,
        unverifiedFrames: frames,
        damage: size > WAL_HEADER_BYTES ? `its write-ahead log header ${checked}` : null,
      };
    }
    return { size, salts: checked.salts, ...scanFrames(file, frames, pageSize, checked) };
  } finally {
    file.close();
  }
}

interface VerifiedHeader {
  salts: Uint8Array;
  littleEndian: boolean;
  checksum: [number, number];
}

/** The verified header, or what is wrong with it. */
function checkHeader(header: Uint8Array, pageSize: number): VerifiedHeader | string {
  if (header.length < WAL_HEADER_BYTES) return "is incomplete";
  const view = new DataView(header.buffer, header.byteOffset, header.length);
  const magic = view.getUint32(0);
  if (magic !== MAGIC_LITTLE_ENDIAN && magic !== MAGIC_BIG_ENDIAN) return "has no WAL magic number";
  const littleEndian = magic === MAGIC_LITTLE_ENDIAN;
  if (view.getUint32(4) !== FORMAT_VERSION) return "has an unknown format version";
  if (view.getUint32(8) !== pageSize) return "names another page size than the database";
  const [s0, s1] = checksum(view, 0, 24, littleEndian, 0, 0);
  if (s0 !== view.getUint32(24) || s1 !== view.getUint32(28)) return "fails its checksum";
  return { salts: header.slice(16, 24), littleEndian, checksum: [s0, s1] };
}

function scanFrames(
  file: Deno.FsFile,
  frames: number,
  pageSize: number,
  header: VerifiedHeader,
): Omit<WalScan, "size" | "salts"> {
  const frameBytes = FRAME_HEADER_BYTES + pageSize;
  const buffer = new Uint8Array(BATCH_FRAMES * frameBytes);
  const view = new DataView(buffer.buffer);
  let chained: [number, number] = header.checksum;
  let committedFrames = 0;
  let unverifiedFrames = 0;
  let firstFailure = 0;
  for (let start = 0; start < frames; start += BATCH_FRAMES) {
    // A log that shrinks while it is read (a writer closing) ends at its last whole frame.
    const wanted = Math.min(BATCH_FRAMES, frames - start) * frameBytes;
    const count = Math.floor(
      readFully(file, buffer.subarray(0, wanted)).length / frameBytes,
    );
    for (let index = 0; index < count; index++) {
      const frame = start + index + 1;
      const at = index * frameBytes;
      const stored: [number, number] = [view.getUint32(at + 16), view.getUint32(at + 20)];
      const verifies = view.getUint32(at) !== 0 &&
        equalBytes(buffer.subarray(at + 8, at + 16), header.salts) &&
        equalPair(frameChecksum(view, at, pageSize, header.littleEndian, chained), stored);
      // The writer chained each frame's checksum from the previous frame's:
      // checking from the stored value lets a frame after a damaged one verify.
      chained = stored;
      if (!verifies) {
        unverifiedFrames++;
        if (firstFailure === 0) firstFailure = frame;
        continue;
      }
      const commit = view.getUint32(at + 4) !== 0;
      if (commit && firstFailure === 0) committedFrames = frame;
      if (commit && firstFailure !== 0) {
        return {
          committedFrames,
          unverifiedFrames,
          damage:
            `its write-ahead log frame ${firstFailure} is damaged, and committed frames follow it`,
        };
      }
    }
    if (count * frameBytes < wanted) break;
  }
  return { committedFrames, unverifiedFrames, damage: null };
}

/** A frame's checksum: its header's first 8 bytes, then its page, chained from `seed`. */
function frameChecksum(
  view: DataView,
  at: number,
  pageSize: number,
  littleEndian: boolean,
  seed: [number, number],
): [number, number] {
  const [s0, s1] = checksum(view, at, 8, littleEndian, seed[0], seed[1]);
  return checksum(view, at + FRAME_HEADER_BYTES, pageSize, littleEndian, s0, s1);
}

/** SQLite's WAL checksum over `length` bytes (a multiple of 8) read as 32-bit words. */
function checksum(
  view: DataView,
  at: number,
  length: number,
  littleEndian: boolean,
  s0: number,
  s1: number,
): [number, number] {
  for (let offset = at; offset < at + length; offset += 8) {
    s0 = (s0 + view.getUint32(offset, littleEndian) + s1) >>> 0;
    s1 = (s1 + view.getUint32(offset + 4, littleEndian) + s0) >>> 0;
  }
  return [s0, s1];
}

function readFully(file: Deno.FsFile, into: Uint8Array): Uint8Array {
  let read = 0;
  while (read < into.length) {
    const n = file.readSync(into.subarray(read));
    if (n === null) return into.subarray(0, read);
    read += n;
  }
  return into;
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, index) => byte === b[index]);
}

function equalPair(a: [number, number], b: [number, number]): boolean {
  return a[0] === b[0] && a[1] === b[1];
}
