/**
 * Opening a local run database: recognized before it is trusted, read without
 * being changed.
 *
 * Invariants:
 * - Before SQLite opens anything, the files are read as bytes: the main
 *   file's SQLite header (magic, `application_id`, `user_version`), its
 *   write-ahead log (`wal-file.ts`) and wal-index (`wal-index.ts`). A foreign,
 *   newer or partially initialized file, or a log SQLite would silently cut
 *   short (damaged frames before committed ones, a damaged header, committed
 *   frames the wal-index records and the log no longer holds), is refused with
 *   a typed error and every file is left byte-for-byte unchanged.
 * - A database that holds no run beside a log holding frames SQLite cannot
 *   apply is damage (the run's creation is what such a log holds), not an
 *   unfinished start.
 * - Reading opens SQLite read-only: it never checkpoints, never deletes or
 *   rewrites the log, and a database at rest (a single file in rollback
 *   mode) gets no `-wal` or `-shm` beside it. Only a writer that is about to
 *   write opens it read-write.
 * - Only an empty (0-byte or new) file is initialized, in one transaction
 *   whose last write is the schema version. That transaction runs in a file
 *   of its own beside it (`<path>-new`, in WAL mode, with no journal sync),
 *   which is synced once and renamed over the empty one, then the folder is
 *   synced: a crash at any point leaves no database or an empty one (no run)
 *   or the complete schema, and the run's creation is the first commit in
 *   place. WAL and `synchronous=FULL` are set on every writing open, and a
 *   writer that closes last returns the database to rollback mode: at rest,
 *   a run is one file.
 * - The files are read as bytes only while this process has no connection to
 *   them: closing a descriptor drops every POSIX lock the process holds on
 *   the file, SQLite's included.
 *
 * @module
 */
import { dirnameOf } from "@xmd/core/deno/internal";
import { DatabaseSync } from "node:sqlite";
import {
  RunDatabaseAccessError,
  WorkflowDatabaseCorruptError,
  WorkflowDatabaseFormatError,
  WorkflowSchemaVersionError,
} from "../contracts/workflow-errors.ts";
import {
  initializeSchema,
  recognizeSchema,
  SCHEMA_VERSION,
  upgradeSchema,
} from "../store/schema.ts";
import type { SqlSeam } from "../sql/sql-seam.ts";
import { withFailpoint } from "./failpoint.ts";
import { NodeSqliteSeam } from "./node-sqlite-seam.ts";
import { scanWal, type WalScan } from "./wal-file.ts";
import { readWalIndex, type WalIndex } from "./wal-index.ts";

/** `application_id` of an xmd run database: "XMDR". */
export const APPLICATION_ID = 0x584d4452;

const MAGIC = "SQLite format 3\0";

const SQLITE_READONLY = 8;
const SQLITE_CANTOPEN = 14;
const SQLITE_READONLY_ROLLBACK = 776;

/** How many times the log is read again while a live writer changes it under the reader. */
const STABLE_READ_ATTEMPTS = 3;

/** Paths with a connection open in this process (see the last invariant). */
const connected = new Map<string, number>();

/** The size of the file at `path`, 0 when it does not exist. */
function sizeOf(path: string): number {
  try {
    return Deno.statSync(path).size;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return 0;
    throw error;
  }
}

/** Reads and checks the SQLite header of a non-empty file; returns its page size. */
function checkHeader(path: string, where: string): number {
  const header = new Uint8Array(100);
  let read = 0;
  {
    using file = Deno.openSync(path, { read: true });
    while (read < 100) {
      const n = file.readSync(header.subarray(read));
      if (n === null) break;
      read += n;
    }
  }
  const magic = new TextDecoder().decode(header.subarray(0, 16));
  if (read < 100 || magic !== MAGIC) {
    throw new WorkflowDatabaseFormatError(
      `Cannot open ${where}: it is not a SQLite database, so not an xmd run. It is left as it is`,
    );
  }
  const view = new DataView(header.buffer);
  const userVersion = view.getUint32(60);
  const applicationId = view.getUint32(68);
  if (applicationId !== APPLICATION_ID) {
    throw new WorkflowDatabaseFormatError(
      `Cannot open ${where}: it is a SQLite database but not an xmd run. It is left as it is`,
    );
  }
  if (userVersion > SCHEMA_VERSION) {
    throw new WorkflowSchemaVersionError(
      `Cannot open ${where}: it has schema version ${userVersion}, newer than this xmd reads (${SCHEMA_VERSION}). Upgrade xmd`,
    );
  }
  if (userVersion === 0) {
    throw new WorkflowDatabaseCorruptError(
      `Cannot open ${where}: its initialization did not finish. It is left as it is`,
    );
  }
  const pageSize = view.getUint16(16);
  return pageSize === 1 ? 65536 : pageSize;
}

/**
 * Reads the write-ahead log and wal-index of a non-empty database and refuses
 * one SQLite would cut short. A live writer may change both while they are
 * read: a judgement is made only on a wal-index that read the same before
 * and after the log (no commit in between); a log that never holds still is
 * in a live writer's hands, which SQLite coordinates with.
 */
function recognizeWal(path: string, where: string, pageSize: number): WalScan {
  let wal: WalScan | undefined;
  for (let attempt = 0; attempt < STABLE_READ_ATTEMPTS; attempt++) {
    const before = readWalIndex(`${path}-shm`);
    wal = scanWal(`${path}-wal`, pageSize);
    const after = readWalIndex(`${path}-shm`);
    if (!sameIndex(before, after)) continue;
    const damage = wal.damage ?? lostFrames(wal, after);
    if (damage) {
      throw new WorkflowDatabaseCorruptError(
        `Cannot open ${where}: ${damage}, so SQLite would silently drop committed changes. It is left as it is`,
      );
    }
    return wal;
  }
  return wal!;
}

/** What a trusted wal-index says the log lost, or null. */
function lostFrames(wal: WalScan, index: WalIndex | undefined): string | null {
  if (!index || index.committedFrames <= index.backfilledFrames) return null;
  const pending = `${index.committedFrames - index.backfilledFrames} committed frames`;
  if (wal.size === 0) {
    return `its write-ahead log is missing, and its wal-index records ${pending} not yet in the database`;
  }
  if (wal.salts === null) {
    return `its write-ahead log header is unreadable, and its wal-index records ${pending} not yet in the database`;
  }
  // Another generation of the log than the index describes: nothing to compare.
  if (!equalBytes(wal.salts, index.salts)) return null;
  if (wal.committedFrames < index.committedFrames) {
    return `its write-ahead log holds ${wal.committedFrames} of the ${index.committedFrames} committed frames its wal-index records (it was cut short or damaged)`;
  }
  return null;
}

function sameIndex(a: WalIndex | undefined, b: WalIndex | undefined): boolean {
  return a === undefined || b === undefined ? a === b : equalBytes(a.bytes, b.bytes);
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, index) => byte === b[index]);
}

/** What byte-level recognition found. */
interface Recognized {
  /** Whether the database is empty (a missing or 0-byte main file). */
  empty: boolean;
  /** What its log holds; null when this process already has it open (and recognized it then). */
  wal: WalScan | null;
}

/**
 * Recognizes the files of the database at `path` as bytes, with synchronous
 * calls: a run at rest is one small read of its header and a few lookups of
 * files that are absent, and each asynchronous call would be a round trip
 * through the runtime's thread pool (about 1 ms a run, most of what
 * `xmd workflow list` spent on each).
 */
function recognizeFiles(path: string, where: string): Recognized {
  const empty = sizeOf(path) === 0;
  if (connected.has(path)) return { empty, wal: null };
  if (empty) {
    if (sizeOf(`${path}-wal`) > 0) {
      throw new WorkflowDatabaseCorruptError(
        `Cannot open ${where}: its database file is empty or missing, but its write-ahead log is not. It is left as it is`,
      );
    }
    return { empty, wal: null };
  }
  return { empty, wal: recognizeWal(path, where, checkHeader(path, where)) };
}

/** Refuses a database that holds no run while its log holds frames SQLite cannot apply. */
function checkRunCreated(seam: SqlSeam, wal: WalScan | null, where: string): void {
  if (wal === null || wal.unverifiedFrames === 0) return;
  if (seam.exec("SELECT count(*) AS n FROM run")[0].n !== 0) return;
  throw new WorkflowDatabaseCorruptError(
    `Cannot open ${where}: it holds no run, while its write-ahead log holds frames SQLite cannot apply (its creation, damaged). It is left as it is`,
  );
}

/** An open run database. */
export interface OpenRunDatabase {
  /** The SQL seam over its one connection (armed when `XMD_FAILPOINT` is set). */
  seam: SqlSeam & Disposable;
  /** Whether it was just initialized. */
  created: boolean;
}

/**
 * Opens the run database at `path` for writing. With `create`, a missing or
 * empty file is initialized; without it, a missing or empty file is
 * `undefined`.
 */
export function openRunDatabase(
  path: string,
  where: string,
  options: { create: boolean },
): Promise<OpenRunDatabase | undefined> {
  try {
    return Promise.resolve(openForWriting(path, where, options));
  } catch (error) {
    return Promise.reject(error);
  }
}

function openForWriting(
  path: string,
  where: string,
  options: { create: boolean },
): OpenRunDatabase | undefined {
  const { empty, wal } = recognizeFiles(path, where);
  if (empty) {
    if (!options.create) return undefined;
    buildSchema(path, where);
    const seam = withFailpoint(() => connectForWriting(path, where));
    try {
      configure(seam);
    } catch (error) {
      seam[Symbol.dispose]();
      throw error;
    }
    return { seam, created: true };
  }
  // Recognized over a read-only connection first: closing a writing one
  // checkpoints, so a refusal found over it would already have changed files.
  let recognized = true;
  try {
    openForReading(path, where, wal)[Symbol.dispose]();
  } catch (error) {
    if (!(error instanceof RunDatabaseAccessError) || error.reason !== "unfinished-write") {
      throw error;
    }
    // SQLite rolls the unfinished write back as the writing connection first reads.
    recognized = false;
  }
  const seam = withFailpoint(() => connectForWriting(path, where));
  try {
    if (!recognized) {
      recognizeSchema(seam, where);
      checkRunCreated(seam, wal, where);
    }
    configure(seam);
    // A writer's first write: a version-1 database becomes version 2, its header with it.
    upgradeSchema(seam, () => seam.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`));
  } catch (error) {
    seam[Symbol.dispose]();
    throw error;
  }
  return { seam, created: false };
}

/**
 * Initializes the schema of the database at `path` (missing or empty): in
 * `<path>-new`, then moved into place. Built without syncs (SQLite's
 * rollback journal would cost four, and the switch to WAL four more): the
 * file is synced once, whole, before its rename, and the folder after it.
 * Built in WAL mode, so the first writing open has no journal mode to
 * switch. A file left by a start killed before the rename is replaced.
 */
function buildSchema(path: string, where: string): void {
  const building = `${path}-new`;
  // Its file calls are synchronous, as are SQLite's own and recognition's (see recognizeFiles).
  for (const leftover of [building, `${building}-wal`, `${building}-shm`, `${building}-journal`]) {
    try {
      Deno.removeSync(leftover);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
  {
    // The failpoint is read before the file is created: a malformed one creates nothing.
    using seam = withFailpoint(() => new NodeSqliteSeam(new DatabaseSync(building), where));
    seam.exec("PRAGMA synchronous = OFF");
    seam.exec("PRAGMA journal_mode = WAL");
    initializeSchema(seam, () => {
      seam.exec(`PRAGMA application_id = ${APPLICATION_ID}`);
      seam.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
    });
  }
  // Closing the last connection copied the log into the file and removed it.
  {
    using file = Deno.openSync(building, { read: true, write: true });
    file.syncSync();
  }
  Deno.renameSync(building, path);
  // As SQLite does for the folder of its own new files: best effort, since
  // some file systems cannot open or sync a folder, and refusing there would
  // refuse every start where SQLite alone worked.
  try {
    using folder = Deno.openSync(dirnameOf(path), { read: true });
    folder.syncSync();
  } catch {
    // The rename stands; only its durability across a power loss is the file system's.
  }
}

/**
 * Opens the run database at `path` for reading only, or `undefined` when it
 * is missing or empty. With `recover`, a write that stopped half-way in
 * rollback mode (a hot rollback journal, which a reader cannot apply) is
 * first rolled back by SQLite over a writing connection: the caller is about
 * to write anyway. Without it, that state is a `RunDatabaseAccessError`.
 */
export function readRunDatabase(
  path: string,
  where: string,
  options: { recover: boolean } = { recover: false },
): (SqlSeam & Disposable) | undefined {
  const { empty, wal } = recognizeFiles(path, where);
  if (empty) return undefined;
  try {
    return openForReading(path, where, wal);
  } catch (error) {
    if (!options.recover || !(error instanceof RunDatabaseAccessError)) throw error;
    if (error.reason !== "unfinished-write") throw error;
  }
  {
    using connection = tracked(path, new DatabaseSync(path));
    connection.db.exec("PRAGMA busy_timeout = 10000");
    connection.db.prepare("SELECT count(*) FROM sqlite_master").get();
  }
  return openForReading(path, where, recognizeFiles(path, where).wal);
}

function openForReading(path: string, where: string, wal: WalScan | null): SqlSeam & Disposable {
  let seam: NodeSqliteSeam;
  try {
    const connection = tracked(path, new DatabaseSync(path, { readOnly: true }));
    seam = new NodeSqliteSeam(connection.db, where, () => connection[Symbol.dispose]());
  } catch (error) {
    throw accessError(error, where) ?? error;
  }
  try {
    seam.exec("PRAGMA busy_timeout = 10000");
    try {
      recognizeSchema(seam, where);
    } catch (error) {
      throw accessError(error, where) ?? error;
    }
    checkRunCreated(seam, wal, where);
  } catch (error) {
    seam[Symbol.dispose]();
    throw error;
  }
  return seam;
}

/** What SQLite's refusal to read without writing means here, or undefined. */
function accessError(error: unknown, where: string): RunDatabaseAccessError | undefined {
  const code = (error as { errcode?: unknown }).errcode;
  if (typeof code !== "number") return undefined;
  if (code === SQLITE_READONLY_ROLLBACK) {
    return new RunDatabaseAccessError(
      `Cannot read ${where} yet: a write to it stopped half-way, and only a command that writes can let SQLite roll it back. It is left as it is`,
      "unfinished-write",
      { cause: error },
    );
  }
  const primary = code & 0xff;
  if (primary === SQLITE_READONLY || primary === SQLITE_CANTOPEN) {
    return new RunDatabaseAccessError(
      `Cannot read ${where}: SQLite must create its -wal or -shm file beside it to read it, and cannot (the folder is read-only). It is left as it is`,
      "read-only-folder",
      { cause: error },
    );
  }
  return undefined;
}

/** A connection counted in `connected` until it is closed. */
function tracked(path: string, db: DatabaseSync): { db: DatabaseSync } & Disposable {
  connected.set(path, (connected.get(path) ?? 0) + 1);
  let open = true;
  return {
    db,
    [Symbol.dispose]() {
      if (!open) return;
      open = false;
      if (db.isOpen) db.close();
      const count = connected.get(path)! - 1;
      if (count === 0) connected.delete(path);
      else connected.set(path, count);
    },
  };
}

/**
 * Opens a writing connection that waits for a concurrent writer instead of
 * failing at once (setting the timeout writes nothing to the file). When it
 * closes it returns the database to rollback mode, which checkpoints and
 * removes the log; with another connection still open, SQLite refuses and
 * the database stays, just as valid, in WAL mode.
 */
function connectForWriting(path: string, where: string): NodeSqliteSeam {
  const connection = tracked(path, new DatabaseSync(path));
  connection.db.exec("PRAGMA busy_timeout = 10000");
  return new NodeSqliteSeam(connection.db, where, () => {
    try {
      if (connection.db.isOpen && !connection.db.isTransaction) {
        connection.db.exec("PRAGMA journal_mode = DELETE");
      }
    } catch {
      // Busy (another connection is open) or unable: WAL mode at rest is valid too.
    }
    connection[Symbol.dispose]();
  });
}

/**
 * Checkpoints a writer's log once it holds this many pages (SQLite's default
 * is 1,000). A complete checkpoint lets the next commit write the log from its
 * start again, over blocks the file already has; until then each commit
 * extends the file, and a `synchronous=FULL` commit that extends it costs
 * more than one that overwrites (the file system allocates and records the
 * new blocks). At 256 pages (1 MiB) a run of 220 one-file steps spent 10–15%
 * less time in its commits than at 1,000, and 25–40% less than with no
 * checkpoint before the close (bench/profile-scale.md, sixth pass). Every
 * commit still syncs the log; a checkpoint only copies committed pages.
 */
const WAL_AUTOCHECKPOINT_PAGES = 256;

function configure(seam: SqlSeam): void {
  seam.exec("PRAGMA journal_mode = WAL");
  seam.exec("PRAGMA synchronous = FULL");
  seam.exec(`PRAGMA wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
}

/**
 * Runs `read` in one read transaction of a reading seam, so that everything
 * it reads is one committed state even while a writer commits.
 */
export async function readConsistently<T>(
  seam: SqlSeam,
  read: () => T | Promise<T>,
): Promise<T> {
  seam.exec("BEGIN");
  try {
    return await read();
  } finally {
    seam.exec("COMMIT");
  }
}
