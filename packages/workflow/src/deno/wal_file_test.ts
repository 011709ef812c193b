/**
 * The write-ahead log reader on logs written here frame by frame (both
 * checksum byte orders), and on one SQLite wrote: what SQLite applies, what it
 * ignores, and when ignoring it would drop committed frames (WF-41).
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { scanWal } from "./wal-file.ts";

const PAGE = 512;

/** A frame to write: its page number, whether it commits, and how to spoil it. */
interface Frame {
  commit?: boolean;
  spoil?: "page" | "salt";
}

/** Writes a log of `frames` (checksums chained as SQLite chains them) and returns its path. */
async function writeWal(frames: Frame[], littleEndian = true): Promise<string> {
  const bytes = new Uint8Array(32 + frames.length * (24 + PAGE));
  const view = new DataView(bytes.buffer);
  view.setUint32(0, littleEndian ? 0x377f0682 : 0x377f0683);
  view.setUint32(4, 3007000);
  view.setUint32(8, PAGE);
  view.setUint32(12, 0);
  view.setUint32(16, 0x11223344);
  view.setUint32(20, 0x55667788);
  let [s0, s1] = checksum(view, 0, 24, littleEndian, 0, 0);
  view.setUint32(24, s0);
  view.setUint32(28, s1);
  frames.forEach((frame, index) => {
    const at = 32 + index * (24 + PAGE);
    view.setUint32(at, index + 1);
    view.setUint32(at + 4, frame.commit ? index + 1 : 0);
    bytes.copyWithin(at + 8, 16, 24);
    bytes.fill(index + 7, at + 24, at + 24 + PAGE);
    [s0, s1] = checksum(view, at, 8, littleEndian, s0, s1);
    [s0, s1] = checksum(view, at + 24, PAGE, littleEndian, s0, s1);
    view.setUint32(at + 16, s0);
    view.setUint32(at + 20, s1);
    if (frame.spoil === "page") bytes[at + 24 + 40] ^= 1;
    if (frame.spoil === "salt") bytes[at + 8] ^= 1;
  });
  const path = await Deno.makeTempFile({ suffix: "-wal" });
  await Deno.writeFile(path, bytes);
  return path;
}

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

const COMMIT = { commit: true };

Deno.test("WF-41 scanWal: committed frames are read up to the last commit, in either checksum byte order", async () => {
  for (const littleEndian of [true, false]) {
    const path = await writeWal([{}, COMMIT, {}, COMMIT, {}], littleEndian);
    assert.deepEqual(scanWal(path, PAGE), {
      size: 32 + 5 * (24 + PAGE),
      salts: new Uint8Array([0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88]),
      committedFrames: 4,
      unverifiedFrames: 0,
      damage: null,
    });
    await Deno.remove(path);
  }
});

Deno.test("WF-41 scanWal: a frame that fails with a verifying commit frame after it is damage", async () => {
  for (const spoil of ["page", "salt"] as const) {
    const path = await writeWal([COMMIT, { spoil }, {}, COMMIT]);
    const scan = scanWal(path, PAGE);
    assert.equal(scan.committedFrames, 1);
    assert.match(scan.damage ?? "", /frame 2 is damaged, and committed frames follow it/);
    await Deno.remove(path);
  }
});

Deno.test("WF-41 scanWal: a torn last transaction is not damage", async () => {
  // The last transaction's frames fail, or verify without their commit frame.
  const torn: Frame[][] = [[COMMIT, {}, { spoil: "page" }], [COMMIT, { spoil: "page" }, {}]];
  for (const frames of torn) {
    const path = await writeWal(frames);
    const scan = scanWal(path, PAGE);
    assert.equal(scan.damage, null);
    assert.equal(scan.committedFrames, 1);
    assert.equal(scan.unverifiedFrames, frames.filter((frame) => frame.spoil).length);
    await Deno.remove(path);
  }
  // A partial last frame is not a frame.
  const path = await writeWal([COMMIT, COMMIT]);
  await Deno.truncate(path, 32 + 24 + PAGE + 100);
  assert.deepEqual(
    { ...scanWal(path, PAGE), salts: null },
    {
      size: 32 + 24 + PAGE + 100,
      salts: null,
      committedFrames: 1,
      unverifiedFrames: 0,
      damage: null,
    },
  );
  await Deno.remove(path);
});

Deno.test("WF-41 scanWal: a header that does not verify is damage when frames follow it, and nothing when none do", async () => {
  const path = await writeWal([COMMIT]);
  const bytes = await Deno.readFile(path);
  bytes[13] ^= 1;
  await Deno.writeFile(path, bytes);
  assert.match(scanWal(path, PAGE).damage ?? "", /header fails its checksum/);
  await Deno.writeFile(path, bytes.subarray(0, 32));
  assert.equal(scanWal(path, PAGE).damage, null);
  bytes[13] ^= 1;
  await Deno.writeFile(path, bytes);
  assert.match(scanWal(path, 1024).damage ?? "", /names another page size/);
  await Deno.remove(path);
  assert.deepEqual(scanWal(path, PAGE), {
    size: 0,
    salts: null,
    committedFrames: 0,
    unverifiedFrames: 0,
    damage: null,
  });
});

Deno.test("WF-41 scanWal reads a log SQLite wrote as SQLite does", async () => {
  const dir = await Deno.makeTempDir();
  const db = new DatabaseSync(`${dir}/db`);
  db.exec("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; CREATE TABLE t (x TEXT)");
  for (let i = 0; i < 20; i++) db.prepare("INSERT INTO t VALUES (?)").run("x".repeat(3000));
  const pageSize = Number(db.prepare("PRAGMA page_size").get()!.page_size);
  const frames = ((await Deno.stat(`${dir}/db-wal`)).size - 32) / (24 + pageSize);
  const scan = scanWal(`${dir}/db-wal`, pageSize);
  db.close();
  assert.equal(scan.damage, null);
  assert.equal(scan.unverifiedFrames, 0);
  assert.equal(scan.committedFrames, frames);
  await Deno.remove(dir, { recursive: true });
});
