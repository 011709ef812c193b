/**
 * The Workspace benchmarks:
 *
 * - publication: in a 10,000-file Workspace (100 directories of 100 files, an
 *   in-memory `NodeSqliteSeam`), `publishRoot` after changing one file
 *   against `publishRoot` after `forgetHashes` (a full rehash of the same
 *   Workspace). Only `publishRoot` is timed; the change and `forgetHashes`
 *   happen first in the same transaction.
 * - `<File>` write effect: the executor's live effect path (see
 *   `_workspace-effect.ts`: a write through `WorkspaceFileSystem` inside the
 *   held transaction, the secret gate, `publishRoot`, `RunStore.append`,
 *   `COMMIT`, `synchronous=FULL` on a temporary file) on a run whose
 *   Workspace holds 10,000 files, on one whose Workspace holds only the file
 *   written, and a bare SQLite commit, interleaved on the same disk. Both
 *   runs overwrite a file two levels deep with 1 KiB of new text.
 *
 * Everything hashes with `nativeSha256Hex` (`node:crypto`), as the local
 * provider does; the throughput floors compare it with `sha256Hex`.
 * - throughput: 64 MiB written as 64 files of 1 MiB (one chunk each) through
 *   `Workspace.writeFile`, each committed (`synchronous=FULL`), then read
 *   back with `Workspace.readFile`; with their floors on the same data: the
 *   SHA-256 `@xmd/core` hashes chunks with, `node:crypto`'s SHA-256, and bare
 *   SQLite inserts of the same blobs.
 *
 * Invariant: every timed call is checked (the rehash returns the root it
 * started from, effects are counted against the database and the root is
 * verified, every read returns the bytes last written), so a call that did
 * not do its work fails the benchmark instead of timing it.
 *
 * @module
 */
import { type Description, sha256Hex } from "@xmd/core";
import { type SqlSeam } from "@xmd/workflow";
import { forgetHashes, publishRoot, Workspace } from "@xmd/workflow/internal";
import { nativeSha256Hex, NodeSqliteSeam } from "@xmd/workflow/deno/internal";
import { createHash } from "node:crypto";
import { DatabaseSync } from "node:sqlite";
import type { Samples } from "./_stats.ts";
import { type EffectRun, openEffectRun } from "./_workspace-effect.ts";

/** Directories × files per directory of the large Workspace. */
export const LARGE = { dirs: 100, files: 100 } as const;
/** Bytes each `<File>` effect writes. */
export const EFFECT_BYTES = 1_024;
/** Throughput: chunk-sized files per pass, and their size. */
export const THROUGHPUT = { files: 64, bytes: 1024 * 1024 } as const;

const encoder = new TextEncoder();
const pad = (n: number) => String(n).padStart(3, "0");

/** Fills `workspace` with `dirs` × `files` small files, in one transaction, and publishes it. */
function populate(sql: SqlSeam, workspace: Workspace, dirs: number, files: number): string {
  return sql.transaction(() => {
    for (let d = 0; d < dirs; d++) {
      workspace.mkdir(`/d${pad(d)}`);
      for (let f = 0; f < files; f++) {
        workspace.writeFile(`/d${pad(d)}/f${pad(f)}.txt`, encoder.encode(`file ${d}/${f}\n`));
      }
    }
    return publishRoot(sql, nativeSha256Hex);
  });
}

/** The two timed publications over one 10,000-file in-memory Workspace. */
export interface PublicationFixture extends Disposable {
  /** Files in the Workspace. */
  files: number;
  /** Changes one file's content, then times `publishRoot`. */
  incremental(): number;
  /** Forgets every cached hash, then times `publishRoot` (a full rehash). */
  full(): number;
}

/** Builds the 10,000-file Workspace in memory. */
export function openPublicationFixture(): PublicationFixture {
  const seam = new NodeSqliteSeam(new DatabaseSync(":memory:"), "the bench Workspace");
  seam.transaction(() => Workspace.initialize(seam));
  const workspace = new Workspace(seam, { sha256: nativeSha256Hex });
  let root = populate(seam, workspace, LARGE.dirs, LARGE.files);
  let calls = 0;
  return {
    files: LARGE.dirs * LARGE.files,
    incremental: () =>
      seam.transaction(() => {
        const call = ++calls;
        const path = `/d${pad(call % LARGE.dirs)}/f${pad((call * 37) % LARGE.files)}.txt`;
        workspace.writeFile(path, encoder.encode(`changed ${call}\n`));
        const t0 = performance.now();
        const next = publishRoot(seam, nativeSha256Hex);
        const ms = performance.now() - t0;
        if (next === root) throw new Error("Cannot benchmark publication: the root did not change");
        root = next;
        return ms;
      }),
    full: () =>
      seam.transaction(() => {
        forgetHashes(seam);
        const t0 = performance.now();
        const again = publishRoot(seam, nativeSha256Hex);
        const ms = performance.now() - t0;
        if (again !== root) throw new Error("Cannot benchmark a rehash: it found another root");
        return ms;
      }),
    [Symbol.dispose]: () => seam[Symbol.dispose](),
  };
}

/** Calls `timed` (which returns its own measured milliseconds) after warm-up, within a budget. */
export function sampleTimed(
  timed: () => number,
  budget: { warmupCalls: number; minSamples: number; maxSamples: number; budgetMs: number },
): Samples {
  for (let call = 0; call < budget.warmupCalls; call++) timed();
  const ms: number[] = [];
  const start = performance.now();
  while (
    ms.length < budget.minSamples ||
    (ms.length < budget.maxSamples && performance.now() - start < budget.budgetMs)
  ) {
    ms.push(timed());
  }
  return { ms };
}

/** 1 KiB of text, different for each call. */
export function effectText(call: number): string {
  const line = "a workspace effect writes this line again and again\n";
  return (String(call).padStart(8, "0") + line.repeat(24)).slice(0, EFFECT_BYTES);
}

/** The `<File>` effect runs and the bare peer, on one disk. */
export interface FileEffectFixture extends Disposable {
  /** One `<File>` write effect on the run whose Workspace holds 10,000 files. */
  writeLarge(): Promise<void>;
  /** The same on the run whose Workspace holds only the file it writes. */
  writeEmpty(): Promise<void>;
  /** The peer: `BEGIN IMMEDIATE`, one 1 KiB INSERT, `COMMIT` on a bare database. */
  bareCommit(): void;
  /** Throws unless both runs hold exactly the events appended, on sound roots. */
  verify(): void;
}

/** Opens both runs and the bare database in `dir` (a folder on the disk under test). */
export async function openFileEffectFixture(dir: string): Promise<FileEffectFixture> {
  const large = await openEffectRun(`${dir}/large.sqlite`);
  const empty = await openEffectRun(`${dir}/empty.sqlite`);
  populate(large.store.sql, large.workspace, LARGE.dirs, LARGE.files);
  const bare = new DatabaseSync(`${dir}/bare.sqlite`);
  bare.exec("PRAGMA journal_mode = WAL");
  bare.exec("PRAGMA synchronous = FULL");
  bare.exec("CREATE TABLE item (id INTEGER PRIMARY KEY, body BLOB NOT NULL) STRICT");
  const insert = bare.prepare("INSERT INTO item (body) VALUES (?)");
  const blob = crypto.getRandomValues(new Uint8Array(EFFECT_BYTES));
  let calls = 0;
  const write = async (run: EffectRun, path: string) => {
    const content = effectText(++calls);
    const description: Description = {
      type: "file.write",
      name: "File bench.md:3:1",
      path,
      // As the engine names it under the local provider (`RunOptions.sha256`: node:crypto).
      sha256: nativeSha256Hex(content),
    };
    const settled = await run.journal.effect("root", description, async () => {
      await run.fs.writeText(path, content);
      return { status: "ok", value: null };
    });
    if (settled.replayed || settled.result.status !== "ok") {
      throw new Error("Cannot benchmark a <File> effect: it did not run live and succeed");
    }
  };
  return {
    writeLarge: () =>
      write(large, `d${pad(calls % LARGE.dirs)}/f${pad((calls * 37) % LARGE.files)}.txt`),
    writeEmpty: () => write(empty, "d000/f000.txt"),
    bareCommit: () => {
      bare.exec("BEGIN IMMEDIATE");
      insert.run(blob);
      bare.exec("COMMIT");
    },
    verify: () => {
      large.verify();
      empty.verify();
    },
    [Symbol.dispose]: () => {
      large[Symbol.dispose]();
      empty[Symbol.dispose]();
      bare.close();
    },
  };
}

/** One pass of each throughput measurement over 64 MiB. */
export interface ThroughputFixture extends Disposable {
  /** Bytes per pass. */
  bytes: number;
  /** 64 × `Workspace.writeFile` of 1 MiB, each in its own committed transaction. */
  write(): void;
  /** 64 × `Workspace.readFile` of the files last written, checked. */
  read(): void;
  /** Floor: `sha256Hex` (`@xmd/core`) of the same 64 chunks. */
  hashCore(): void;
  /** Peer: `node:crypto` SHA-256 of the same 64 chunks. */
  hashNative(): void;
  /** Floor: 64 bare SQLite INSERTs of the same blobs, each committed (WAL, FULL). */
  bareInsert(): void;
}

/** Opens a run database and a bare one in `dir`, with 64 MiB of random data. */
export async function openThroughputFixture(dir: string): Promise<ThroughputFixture> {
  const run = await openEffectRun(`${dir}/throughput.sqlite`);
  const seam = run.store.sql;
  const workspace = run.workspace;
  seam.transaction(() => workspace.mkdir("/t"));
  const chunks = Array.from({ length: THROUGHPUT.files }, () => {
    const chunk = new Uint8Array(THROUGHPUT.bytes);
    for (let offset = 0; offset < chunk.length; offset += 65_536) {
      crypto.getRandomValues(chunk.subarray(offset, offset + 65_536));
    }
    return chunk;
  });
  const bare = new DatabaseSync(`${dir}/bare-throughput.sqlite`);
  bare.exec("PRAGMA journal_mode = WAL");
  bare.exec("PRAGMA synchronous = FULL");
  bare.exec("CREATE TABLE item (id INTEGER PRIMARY KEY, body BLOB NOT NULL) STRICT");
  const insert = bare.prepare("INSERT INTO item (body) VALUES (?)");
  let pass = 0;
  // Each pass stamps its number into every chunk, so no chunk is ever deduplicated.
  const stamp = () => {
    pass++;
    for (const chunk of chunks) new DataView(chunk.buffer).setUint32(0, pass);
  };
  return {
    bytes: THROUGHPUT.files * THROUGHPUT.bytes,
    write: () => {
      stamp();
      chunks.forEach((chunk, i) => seam.transaction(() => workspace.writeFile(`/t/${i}`, chunk)));
    },
    read: () => {
      chunks.forEach((chunk, i) => {
        const data = workspace.readFile(`/t/${i}`);
        if (data.length !== chunk.length || data[3] !== chunk[3] || data[9_999] !== chunk[9_999]) {
          throw new Error(`Cannot benchmark reading /t/${i}: it is not what was written`);
        }
      });
    },
    hashCore: () => {
      for (const chunk of chunks) sha256Hex(chunk);
    },
    hashNative: () => {
      for (const chunk of chunks) createHash("sha256").update(chunk).digest("hex");
    },
    bareInsert: () => {
      stamp();
      for (const chunk of chunks) {
        bare.exec("BEGIN IMMEDIATE");
        insert.run(chunk);
        bare.exec("COMMIT");
      }
    },
    [Symbol.dispose]: () => {
      run[Symbol.dispose]();
      bare.close();
    },
  };
}
