/**
 * A diagnostic, not part of `deno task bench`: what one `<File>` step would
 * cost under other storage layouts of the run database, against the bare
 * `synchronous=FULL` commit of 1 KiB (issue 12, targets 1 and 2;
 * `bench/profile-step.md`, seventh pass).
 *
 * Run it from the repository:
 * `deno run --lock=dev.lock -A bench/floor-layouts.ts [rounds] [frame-warmup]`
 * (40 rounds by default, about a minute; 0 rounds counts frames only; the
 * frames are counted after 600 steps unless told).
 *
 * Every contender is a database file in one temporary folder (the bench's),
 * WAL, `synchronous=FULL`, the run database's `wal_autocheckpoint` of 256
 * pages (the bench's peer keeps SQLite's 1,000), written through `node:sqlite` prepared statements
 * whose rows are read as arrays (as the run database's seam reads them):
 *
 * - `bare`: the bench's peer. `BEGIN IMMEDIATE`, one INSERT of a 1 KiB blob,
 *   `COMMIT`; `bare-256` the same with the run database's checkpoint.
 * - `real`: xmd's own effect path (`_workspace-effect.ts`: `Journal.effect`
 *   with the secret gate, the Workspace write, publication, the append,
 *   `COMMIT`), to calibrate the simulations against.
 * - `today`: schema version 2 (a run database built by `openRunDatabase`,
 *   reopened bare) and, in order, the statements the real effect runs,
 *   counted through a wrapper of the seam: 17 for an overwrite, 19 for a new
 *   name (`STEP_STATEMENTS` holds their texts).
 * - `narrow`: today's statements over objects and chunks keyed by row id,
 *   their hash as 32 bytes with an index on its first 8 (as an integer):
 *   the hash index made narrower, still updated at every step.
 * - `append`: objects and chunks appended to row-id tables; trees and events
 *   carry their children's and root's row ids; the index by hash (for
 *   dedupe, reads by hash and publication) is one `WITHOUT ROWID` table
 *   filled every `BATCH` steps from a watermark, and a dedupe probe reads it
 *   and the connection's own unindexed rows. Live tables as today.
 * - `merged`: as `append`, with chunks and objects in one appended table.
 * - `tree-only`: as `merged`, without live tables: the Workspace is the
 *   newest root's trees (a write is looked up in the connection's copy of
 *   them); a step appends its chunk, three objects and its event.
 * - `minimal`: what such a step must store and nothing more: its chunk and
 *   three objects appended to one table, its event; nothing read, no index.
 * - `floor`: the least a journal of content-addressed roots can write: the
 *   event, the content and one root object, appended to one table, no reads.
 *
 * Each contender runs both step kinds the bench has: an overwrite of
 * `d000/f000.txt` (the `<File>` effect row) and a new name (`s<k>/<j>.txt`,
 * 250 names a folder, as the CLI's and the peers' documents write). Every
 * content is new (1 KiB, its number first), so every step stores a chunk and
 * three objects (the file, its folder's tree, the root's).
 *
 * Two passes, each on fresh files: the frame pass (the warm-up steps under
 * `synchronous=OFF`, then the log emptied, checkpoints off and `FRAME_STEPS`
 * steps under `FULL`: the log's length in frames, each frame's page named by
 * `dbstat`), and the timing pass (`WARMUP` steps, then blocks of `BLOCK`
 * calls of each contender in rotating order; wall per call, CPU per call
 * from `process.cpuUsage`, whose two calls frame the timed one). The last
 * column projects the real effect onto each layout: its wall median minus
 * `today`'s plus the layout's, over the bare commit's.
 *
 * Invariant: each contender counts the events (or log rows) it committed and
 * checks them against its database at the end, so a step that did not commit
 * fails the run instead of being timed.
 *
 * @module
 */
import type { Description } from "@xmd/core";
import { RunStore } from "@xmd/workflow";
import { nativeSha256Hex, openRunDatabase } from "@xmd/workflow/deno/internal";
import { createHash } from "node:crypto";
import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite";
import { temporaryDirectory } from "./_journal-fixture.ts";
import { fixed, markdownTable, summarize } from "./_stats.ts";
import { type EffectRun, openEffectRun } from "./_workspace-effect.ts";

/** Bytes of each step's content. */
const CONTENT_BYTES = 1_024;
/** Names per folder for the new-name steps. */
const FOLDER_NAMES = 250;
/** Steps between two fillings of the batched hash index. */
const BATCH = 64;
/** Untimed steps of each contender before timing (the tables reach a run's size). */
const WARMUP = 300;
/** Timed calls of one contender in a row. */
const BLOCK = 25;
/** Frame pass: steps before counting, and steps counted. */
const FRAME_WARMUP = 600;
const FRAME_STEPS = 400;
/** The run database's checkpoint threshold (`run-database.ts`). */
const WAL_AUTOCHECKPOINT_PAGES = 256;
const PAGE_SIZE = 4096;

type Kind = "overwrite" | "new";

/** What one step writes, prepared before it is timed (hashes, texts, blob). */
interface StepInput {
  step: number;
  kind: Kind;
  /** The folder (0-based) and name of the file a new-name step creates. */
  folder: number;
  name: string;
  content: Uint8Array;
  chunkHash: string;
  fileBody: string;
  fileHash: string;
  dirBody: string;
  dirHash: string;
  rootBody: string;
  rootHash: string;
  eventBody: string;
}

const sha256 = (data: string | Uint8Array) => createHash("sha256").update(data).digest("hex");
/**
 * The bytes of a hex hash, and the UTF-8 of a text: a real layout has the
 * digest's bytes and the text's encoding in hand, so `prepare` converts the
 * step's own before the step is timed and these find them.
 */
const prepared = new Map<string, Uint8Array>();
const raw = (hex: string) =>
  prepared.get(hex) ?? Uint8Array.from(hex.match(/../g)!, (byte) => parseInt(byte, 16));
const utf8 = (text: string) => prepared.get(text) ?? new TextEncoder().encode(text);
/** The first 8 bytes of a hash as a signed 64-bit integer. */
const prefix = (hex: string) => BigInt.asIntN(64, BigInt(`0x${hex.slice(0, 16)}`));
const pad = (text: string, length: number) => text.padEnd(length, " ");

/** The texts of step `step`, sized as the real objects and event are (traced: 102, 112–115, 110, 237). */
function prepare(step: number, kind: Kind): StepInput {
  const folder = Math.floor(step / FOLDER_NAMES);
  const name = `${step % FOLDER_NAMES}.txt`;
  const line = "a workspace effect writes this line again and again\n";
  const content = new TextEncoder().encode(
    (String(step).padStart(8, "0") + line.repeat(24)).slice(0, CONTENT_BYTES),
  );
  const chunkHash = sha256(content);
  const fileBody = pad(`{"chunks":["${chunkHash}"],"size":1024}`, 102);
  const fileHash = sha256(fileBody);
  const entry = kind === "overwrite" ? "f000.txt" : name;
  const dirBody = pad(`{"entries":[["${entry}","file",420,"${fileHash}"]]}`, 114);
  const dirHash = sha256(dirBody);
  const rootBody = pad(`{"entries":[["d","dir",493,"${dirHash}"]]}`, 110);
  const rootHash = sha256(rootBody);
  const path = kind === "overwrite" ? "d000/f000.txt" : `s${folder}/${name}`;
  prepared.clear();
  for (const hash of [chunkHash, fileHash, dirHash, rootHash]) prepared.set(hash, raw(hash));
  for (const text of [fileBody, dirBody, rootBody]) prepared.set(text, utf8(text));
  const eventBody = pad(
    `{"type":"yield","coroutineId":"root","description":{"type":"file.write","name":"File bench.md:3:1","path":"${path}","sha256":"${chunkHash}"},"result":{"status":"ok","value":null}}`,
    237,
  );
  prepared.set(eventBody, utf8(eventBody));
  return {
    step,
    kind,
    folder,
    name,
    content,
    chunkHash,
    fileBody,
    fileHash,
    dirBody,
    dirHash,
    rootBody,
    rootHash,
    eventBody,
  };
}

/** One database under test. */
interface Contender extends Disposable {
  name: string;
  kind: Kind;
  /** The database file, for the frame pass. */
  file: string;
  /** Writes and commits one step. */
  write(input: StepInput): void | Promise<void>;
  /** Throws unless the database holds what the calls committed. */
  verify(): void;
  /** Runs a `PRAGMA` on the contender's connection. */
  pragma(sql: string): void;
}

/** A bare connection with the run database's settings (or the bench peer's). */
function connect(file: string): DatabaseSync {
  const db = new DatabaseSync(file);
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = FULL");
  db.exec(`PRAGMA wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
  return db;
}

/** `StatementSync` as the runtime has it (Deno 2.9's types omit `setReturnArrays`). */
type ArrayStatement = StatementSync & { setReturnArrays(enabled: boolean): void };

/** Prepared statements by text, rows read as arrays (as `NodeSqliteSeam` reads them). */
function statements(db: DatabaseSync): (sql: string) => StatementSync {
  const cache = new Map<string, StatementSync>();
  return (sql) => {
    let statement = cache.get(sql);
    if (!statement) {
      statement = db.prepare(sql);
      (statement as ArrayStatement).setReturnArrays(true);
      cache.set(sql, statement);
    }
    return statement;
  };
}

/** Runs `sql` and returns its rows (as the seam does, `all` for every statement). */
function exec(get: (sql: string) => StatementSync, sql: string, ...params: SQLInputValue[]) {
  return get(sql).all(...params) as unknown as SQLInputValue[][];
}

/**
 * The bench's peer (SQLite's default checkpoint, 1,000 pages), or with
 * `runSettings` the run database's (256 pages).
 */
function bare(file: string, runSettings = false): Contender {
  const db = new DatabaseSync(file);
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = FULL");
  if (runSettings) db.exec(`PRAGMA wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
  db.exec("CREATE TABLE item (id INTEGER PRIMARY KEY, body BLOB NOT NULL) STRICT");
  const insert = db.prepare("INSERT INTO item (body) VALUES (?)");
  const blob = crypto.getRandomValues(new Uint8Array(CONTENT_BYTES));
  let rows = 0;
  return {
    name: runSettings ? "bare-256" : "bare",
    kind: "overwrite",
    file,
    write: () => {
      db.exec("BEGIN IMMEDIATE");
      insert.run(blob);
      db.exec("COMMIT");
      rows++;
    },
    verify: () => count(db, "SELECT count(*) FROM item", rows, "bare"),
    pragma: (sql) => db.exec(sql),
    [Symbol.dispose]: () => db.close(),
  };
}

function count(db: DatabaseSync, sql: string, expected: number, name: string): void {
  const row = db.prepare(sql) as ArrayStatement;
  row.setReturnArrays(true);
  const [[n]] = row.all() as unknown as number[][];
  if (Number(n) !== expected) {
    throw new Error(`Cannot trust contender ${name}: ${n} rows, ${expected} committed`);
  }
}

async function real(file: string, kind: Kind): Promise<Contender> {
  const run: EffectRun = await openEffectRun(file);
  let events = run.store.record().eventCount;
  return {
    name: "real",
    kind,
    file,
    write: async (input) => {
      const path = kind === "overwrite" ? "d000/f000.txt" : `s${input.folder}/${input.name}`;
      const content = new TextDecoder().decode(input.content);
      const description: Description = {
        type: "file.write",
        name: "File bench.md:3:1",
        path,
        sha256: nativeSha256Hex(content),
      };
      const settled = await run.journal.effect("root", description, async () => {
        await run.fs.writeText(path, content);
        return { status: "ok", value: null };
      });
      if (settled.replayed || settled.result.status !== "ok") {
        throw new Error("Cannot measure a <File> effect: it did not run live and succeed");
      }
      events++;
    },
    verify: () => {
      run.verify();
      if (run.store.record().eventCount !== events) throw new Error("Cannot trust real: events");
    },
    pragma: (sql) => void run.store.sql.exec(sql),
    [Symbol.dispose]: () => run[Symbol.dispose](),
  };
}

/**
 * The statements of one `<File>` step today, as the real path runs them
 * (traced through a wrapper of the seam, schema version 2).
 */
const STEP_STATEMENTS = {
  lookup: "SELECT d.ino, i.kind, i.target, i.nlink FROM ws_dirent d LEFT JOIN ws_inode i " +
    "ON i.ino = d.ino WHERE d.parent = ? AND d.name = ?",
  newInode: "INSERT INTO ws_inode (kind, mode, size, target, chunks, nlink, hash) " +
    "VALUES (?, ?, ?, ?, NULL, ?, NULL) RETURNING ino",
  chunk: "INSERT OR IGNORE INTO ws_chunk (hash, data) VALUES (?, ?) RETURNING hash",
  content: "UPDATE ws_inode SET size = ?, chunks = ?, hash = NULL WHERE ino = ?",
  dirent: "INSERT INTO ws_dirent (parent, name, ino) VALUES (?, ?, ?)",
  parents: "SELECT ino, hash FROM ws_inode WHERE ino IN (?, ?)",
  dirty: "UPDATE ws_inode SET hash = NULL WHERE ino IN (?, ?)",
  walk: "SELECT i.ino, i.kind, i.mode, i.target, i.size, i.chunks, i.hash FROM ws_dirent d " +
    "JOIN ws_inode i ON i.ino = d.ino WHERE d.parent = ? AND d.name = ?",
  object: "INSERT OR IGNORE INTO ws_object (hash, body) VALUES (?, ?) RETURNING depth",
  delta: "INSERT OR IGNORE INTO ws_object (hash, body, base, depth) VALUES (?, ?, ?, ?) " +
    "RETURNING depth",
  hash: "UPDATE ws_inode SET hash = ? WHERE ino = ?",
  rootInode: "SELECT kind, size, chunks, hash FROM ws_inode WHERE ino = ?",
  fence: "SELECT (SELECT root FROM event ORDER BY seq DESC LIMIT 1) AS last, root FROM run " +
    "WHERE status = 'running' AND execution = ?",
  event: "INSERT INTO event (execution, body, root, created_at) VALUES (?, ?, ?, ?) RETURNING seq",
} as const;

/**
 * The live tables' part of a step (today's, `narrow`'s, `append`'s and
 * `merged`'s): the path's lookups, a new name's inode and entry, the content,
 * the parents marked dirty, and publication's walk and hash updates, with
 * `storeObjects` storing the chunk and the three objects where the layout
 * stores them.
 */
class LiveTables {
  readonly #get: (sql: string) => StatementSync;
  #folderIno = 0;
  #folder = -1;
  #lastDir = "";
  readonly #withIds: boolean;
  constructor(get: (sql: string) => StatementSync, db: DatabaseSync, withIds: boolean) {
    this.#get = get;
    this.#withIds = withIds;
    // The overwrite's folder and file: d000 (inode 2) and f000.txt (inode 3).
    db.exec("BEGIN IMMEDIATE");
    for (const kind of ["dir", "file"]) {
      exec(get, STEP_STATEMENTS.newInode, kind, kind === "dir" ? 493 : 420, 0, null, 1);
    }
    exec(get, STEP_STATEMENTS.dirent, 1, "d000", 2);
    exec(get, STEP_STATEMENTS.dirent, 2, "f000.txt", 3);
    db.exec("COMMIT");
    if (withIds) db.exec("ALTER TABLE ws_inode ADD COLUMN obj INTEGER");
  }

  /** The Workspace write: returns the file's inode and its folder's. */
  write(input: StepInput, storeChunk: () => void): { ino: number; dir: number } {
    const get = this.#get;
    if (input.kind === "overwrite") {
      exec(get, STEP_STATEMENTS.lookup, 1, "d000");
      exec(get, STEP_STATEMENTS.lookup, 2, "f000.txt");
      storeChunk();
      exec(get, STEP_STATEMENTS.content, CONTENT_BYTES, `["${input.chunkHash}"]`, 3);
      exec(get, STEP_STATEMENTS.parents, 1, 2);
      exec(get, STEP_STATEMENTS.dirty, 2, 1);
      return { ino: 3, dir: 2 };
    }
    if (input.folder !== this.#folder) {
      // A new folder every FOLDER_NAMES names, as `mkdir -p` makes it.
      const [[ino]] = exec(get, STEP_STATEMENTS.newInode, "dir", 493, 0, null, 1);
      exec(get, STEP_STATEMENTS.dirent, 1, `s${input.folder}`, ino);
      this.#folderIno = Number(ino);
      this.#folder = input.folder;
    }
    const dir = this.#folderIno;
    exec(get, STEP_STATEMENTS.lookup, 1, `s${input.folder}`);
    exec(get, STEP_STATEMENTS.lookup, dir, input.name);
    const [[created]] = exec(get, STEP_STATEMENTS.newInode, "file", 420, 0, null, 1);
    const ino = Number(created);
    storeChunk();
    exec(get, STEP_STATEMENTS.content, CONTENT_BYTES, `["${input.chunkHash}"]`, ino);
    exec(get, STEP_STATEMENTS.dirent, dir, input.name, ino);
    exec(get, STEP_STATEMENTS.parents, 1, dir);
    exec(get, STEP_STATEMENTS.dirty, dir, 1);
    return { ino, dir };
  }

  /**
   * Publication's reads and hash updates around `store(object)` of the file,
   * folder and root; with row ids, each inode's update also sets the id
   * `store` returns.
   */
  publish(
    input: StepInput,
    at: { ino: number; dir: number },
    store: (which: "file" | "dir" | "root") => unknown,
  ): void {
    const get = this.#get;
    const hash = this.#withIds
      ? (value: string, id: unknown, ino: number) =>
        exec(get, "UPDATE ws_inode SET hash = ?, obj = ? WHERE ino = ?", value, id as number, ino)
      : (value: string, _id: unknown, ino: number) => exec(get, STEP_STATEMENTS.hash, value, ino);
    const folderName = input.kind === "overwrite" ? "d000" : `s${input.folder}`;
    const name = input.kind === "overwrite" ? "f000.txt" : input.name;
    exec(get, STEP_STATEMENTS.walk, 1, folderName);
    exec(get, STEP_STATEMENTS.walk, at.dir, name);
    hash(input.fileHash, store("file"), at.ino);
    hash(input.dirHash, store("dir"), at.dir);
    exec(get, STEP_STATEMENTS.rootInode, 1);
    hash(input.rootHash, store("root"), 1);
    this.#lastDir = input.dirHash;
  }

  /** The previous folder tree's hash (a new name's folder tree is a delta against it). */
  get lastDir(): string {
    return this.#lastDir;
  }
}

/** A run database as `openRunDatabase` builds it, reopened bare, with its running execution. */
async function runDatabase(file: string): Promise<DatabaseSync> {
  const opened = await openRunDatabase(file, "the floor bench run", { create: true });
  if (!opened) throw new Error(`Cannot create ${file}`);
  const store = new RunStore(opened.seam, "the floor bench run");
  store.create({
    id: "floor",
    document: "floor.md",
    target: null,
    definitionHash: sha256("definition"),
    props: {},
    propsHash: sha256("{}"),
    sources: [{ label: "floor.md", text: "Floor.\n", root: true }],
  });
  opened.seam[Symbol.dispose]();
  return connect(file);
}

async function today(file: string, kind: Kind): Promise<Contender> {
  const db = await runDatabase(file);
  const get = statements(db);
  const live = new LiveTables(get, db, false);
  const [[initialEvents]] = exec(get, "SELECT count(*) FROM event");
  let events = Number(initialEvents);
  return {
    name: "today",
    kind,
    file,
    write: (input) => {
      db.exec("BEGIN IMMEDIATE");
      const at = live.write(
        input,
        () => exec(get, STEP_STATEMENTS.chunk, input.chunkHash, input.content),
      );
      const base = live.lastDir;
      live.publish(input, at, (which) => {
        if (which === "file") exec(get, STEP_STATEMENTS.object, input.fileHash, input.fileBody);
        else if (which === "root") {
          exec(get, STEP_STATEMENTS.object, input.rootHash, input.rootBody);
        } else if (input.kind === "new" && base) {
          exec(get, STEP_STATEMENTS.delta, input.dirHash, input.dirBody, base, 1);
        } else exec(get, STEP_STATEMENTS.object, input.dirHash, input.dirBody);
      });
      exec(get, STEP_STATEMENTS.fence, 1);
      exec(get, STEP_STATEMENTS.event, 1, input.eventBody, input.rootHash, Date.now());
      db.exec("COMMIT");
      events++;
    },
    verify: () => count(db, "SELECT count(*) FROM event", events, "today"),
    pragma: (sql) => db.exec(sql),
    [Symbol.dispose]: () => db.close(),
  };
}

/** Today's statements over row-id objects and chunks, each with an index on its hash's first 8 bytes. */
async function narrow(file: string, kind: Kind): Promise<Contender> {
  const db = await runDatabase(file);
  db.exec("DROP TABLE ws_object");
  db.exec("DROP TABLE ws_chunk");
  db.exec(
    "CREATE TABLE ws_object (id INTEGER PRIMARY KEY, prefix INTEGER NOT NULL, hash BLOB NOT NULL, " +
      "body TEXT NOT NULL, base INTEGER, depth INTEGER NOT NULL DEFAULT 0) STRICT",
  );
  db.exec("CREATE INDEX ws_object_prefix ON ws_object (prefix)");
  db.exec(
    "CREATE TABLE ws_chunk (id INTEGER PRIMARY KEY, prefix INTEGER NOT NULL, hash BLOB NOT NULL, " +
      "data BLOB NOT NULL) STRICT",
  );
  db.exec("CREATE INDEX ws_chunk_prefix ON ws_chunk (prefix)");
  const get = statements(db);
  const live = new LiveTables(get, db, false);
  let events = Number(exec(get, "SELECT count(*) FROM event")[0][0]);
  let lastDir = 0;
  const store = (
    table: "ws_object" | "ws_chunk",
    hash: string,
    body: string | Uint8Array,
    base?: number,
  ) => {
    const found = exec(
      get,
      `SELECT id FROM ${table} WHERE prefix = ? AND hash = ?`,
      prefix(hash),
      raw(hash),
    );
    if (found.length) return Number(found[0][0]);
    const column = table === "ws_chunk" ? "data" : "body";
    if (base === undefined) {
      return Number(
        exec(
          get,
          `INSERT INTO ${table} (prefix, hash, ${column}) VALUES (?, ?, ?) RETURNING id`,
          prefix(hash),
          raw(hash),
          body,
        )[0][0],
      );
    }
    return Number(
      exec(
        get,
        "INSERT INTO ws_object (prefix, hash, body, base, depth) VALUES (?, ?, ?, ?, 1) RETURNING id",
        prefix(hash),
        raw(hash),
        body,
        base,
      )[0][0],
    );
  };
  return {
    name: "narrow",
    kind,
    file,
    write: (input) => {
      db.exec("BEGIN IMMEDIATE");
      const at = live.write(input, () => store("ws_chunk", input.chunkHash, input.content));
      live.publish(input, at, (which) => {
        if (which === "file") store("ws_object", input.fileHash, input.fileBody);
        else if (which === "root") store("ws_object", input.rootHash, input.rootBody);
        else {
          lastDir = store(
            "ws_object",
            input.dirHash,
            input.dirBody,
            input.kind === "new" && lastDir ? lastDir : undefined,
          );
        }
      });
      exec(get, STEP_STATEMENTS.fence, 1);
      exec(get, STEP_STATEMENTS.event, 1, input.eventBody, input.rootHash, Date.now());
      db.exec("COMMIT");
      events++;
    },
    verify: () => count(db, "SELECT count(*) FROM event", events, "narrow"),
    pragma: (sql) => db.exec(sql),
    [Symbol.dispose]: () => db.close(),
  };
}

/**
 * The index by hash filled in batches: `<table>_hash (hash BLOB PRIMARY KEY,
 * id) WITHOUT ROWID` holds every row of `table` up to a watermark (a meta row
 * written with each batch); the rows appended since are the connection's own
 * (one writer), kept in memory (a real implementation would forget them on a
 * rollback, and read them back from the watermark on open). A probe reads the
 * index and the memory; every `BATCH` steps the rows past the watermark are
 * copied into the index in the step's transaction.
 */
class BatchedIndex {
  readonly #get: (sql: string) => StatementSync;
  readonly #table: string;
  readonly #tail = new Map<string, number>();
  #watermark = 0;
  constructor(get: (sql: string) => StatementSync, db: DatabaseSync, table: string) {
    this.#get = get;
    this.#table = table;
    db.exec(
      `CREATE TABLE ${table}_hash (hash BLOB PRIMARY KEY, id INTEGER NOT NULL) STRICT, WITHOUT ROWID`,
    );
    db.exec(`INSERT INTO xmd_meta (key, value) VALUES ('${table}_watermark', '0')`);
  }

  /** The ids of those of `hashes` already stored (a probe of 1 or 3 hashes: one statement). */
  find(hashes: readonly string[]): Map<string, number> {
    const found = new Map<string, number>();
    const probe: string[] = [];
    for (const hash of hashes) {
      const id = this.#tail.get(hash);
      if (id === undefined) probe.push(hash);
      else found.set(hash, id);
    }
    if (probe.length) {
      const marks = probe.map(() => "?").join(", ");
      const rows = exec(
        this.#get,
        `SELECT hash, id FROM ${this.#table}_hash WHERE hash IN (${marks})`,
        ...probe.map(raw),
      );
      for (const [hash, id] of rows) {
        found.set(
          Array.from(hash as Uint8Array, (b) => b.toString(16).padStart(2, "0")).join(""),
          Number(id),
        );
      }
    }
    return found;
  }

  /** Notes a row just appended. */
  added(hash: string, id: number): void {
    this.#tail.set(hash, id);
  }

  /** Every `BATCH` steps, copies the rows past the watermark into the index. */
  maybeFill(step: number): void {
    if (step % BATCH !== BATCH - 1 || this.#tail.size === 0) return;
    const top = Math.max(...this.#tail.values());
    exec(
      this.#get,
      `INSERT OR IGNORE INTO ${this.#table}_hash (hash, id) SELECT hash, id FROM ${this.#table} WHERE id > ?`,
      this.#watermark,
    );
    exec(
      this.#get,
      "UPDATE xmd_meta SET value = ? WHERE key = ?",
      String(top),
      `${this.#table}_watermark`,
    );
    this.#watermark = top;
    this.#tail.clear();
  }
}

/**
 * `append` (chunks and objects in two appended tables, each with its batched
 * index) or `merged` (one appended table for both): live tables as today,
 * each inode keeping its object's row id, and the event its root's.
 */
async function appended(
  file: string,
  kind: Kind,
  merged: boolean,
): Promise<Contender> {
  const db = await runDatabase(file);
  db.exec("DROP TABLE ws_object");
  db.exec("DROP TABLE ws_chunk");
  const chunks = merged ? "ws_blob" : "ws_chunk";
  const objects = merged ? "ws_blob" : "ws_object";
  db.exec(
    `CREATE TABLE ${objects} (id INTEGER PRIMARY KEY, hash BLOB NOT NULL, body BLOB NOT NULL, ` +
      "base INTEGER, depth INTEGER NOT NULL DEFAULT 0) STRICT",
  );
  if (!merged) {
    db.exec(
      "CREATE TABLE ws_chunk (id INTEGER PRIMARY KEY, hash BLOB NOT NULL, body BLOB NOT NULL) STRICT",
    );
  }
  db.exec("ALTER TABLE event ADD COLUMN root_id INTEGER");
  const get = statements(db);
  const live = new LiveTables(get, db, true);
  const objectIndex = new BatchedIndex(get, db, objects);
  const chunkIndex = merged ? objectIndex : new BatchedIndex(get, db, chunks);
  let events = Number(exec(get, "SELECT count(*) FROM event")[0][0]);
  let lastDir = 0;
  const insertChunk = `INSERT INTO ${chunks} (hash, body) VALUES (?, ?) RETURNING id`;
  const insertObject =
    `INSERT INTO ${objects} (hash, body, base, depth) VALUES (?, ?, ?, ?) RETURNING id`;
  const event =
    "INSERT INTO event (execution, body, root, root_id, created_at) VALUES (?, ?, ?, ?, ?) " +
    "RETURNING seq";
  return {
    name: merged ? "merged" : "append",
    kind,
    file,
    write: (input) => {
      db.exec("BEGIN IMMEDIATE");
      // One probe for the chunk and the three objects when they share an index, else two.
      const known = merged
        ? objectIndex.find([input.chunkHash, input.fileHash, input.dirHash, input.rootHash])
        : new Map([
          ...chunkIndex.find([input.chunkHash]),
          ...objectIndex.find([input.fileHash, input.dirHash, input.rootHash]),
        ]);
      const at = live.write(input, () => {
        if (known.has(input.chunkHash)) return;
        const id = Number(exec(get, insertChunk, raw(input.chunkHash), input.content)[0][0]);
        chunkIndex.added(input.chunkHash, id);
      });
      let root = 0;
      const store = (hash: string, body: string, base: number | null) => {
        let id = known.get(hash);
        if (id === undefined) {
          id = Number(
            exec(get, insertObject, raw(hash), utf8(body), base, base ? 1 : 0)[0][0],
          );
          objectIndex.added(hash, id);
        }
        return id;
      };
      live.publish(input, at, (which) => {
        if (which === "file") return store(input.fileHash, input.fileBody, null);
        if (which === "root") return root = store(input.rootHash, input.rootBody, null);
        return lastDir = store(
          input.dirHash,
          input.dirBody,
          input.kind === "new" && lastDir ? lastDir : null,
        );
      });
      exec(get, STEP_STATEMENTS.fence, 1);
      exec(get, event, 1, input.eventBody, input.rootHash, root, Date.now());
      objectIndex.maybeFill(input.step);
      if (!merged) chunkIndex.maybeFill(input.step);
      db.exec("COMMIT");
      events++;
    },
    verify: () => count(db, "SELECT count(*) FROM event", events, merged ? "merged" : "append"),
    pragma: (sql) => db.exec(sql),
    [Symbol.dispose]: () => db.close(),
  };
}

/**
 * `tree-only`: no live tables. The Workspace is the newest root's trees, kept
 * by the connection (a write is looked up there; publication needs no walk);
 * a step appends its chunk and three objects to one table with a batched
 * index, then its event with the root's id.
 */
async function treeOnly(file: string, kind: Kind): Promise<Contender> {
  const db = await runDatabase(file);
  db.exec("DROP TABLE ws_object");
  db.exec("DROP TABLE ws_chunk");
  db.exec(
    "CREATE TABLE ws_blob (id INTEGER PRIMARY KEY, hash BLOB NOT NULL, body BLOB NOT NULL, " +
      "base INTEGER, depth INTEGER NOT NULL DEFAULT 0) STRICT",
  );
  db.exec("ALTER TABLE event ADD COLUMN root_id INTEGER");
  const get = statements(db);
  const index = new BatchedIndex(get, db, "ws_blob");
  let events = Number(exec(get, "SELECT count(*) FROM event")[0][0]);
  let lastDir = 0;
  const insert = "INSERT INTO ws_blob (hash, body, base, depth) VALUES (?, ?, ?, ?) RETURNING id";
  const event =
    "INSERT INTO event (execution, body, root, root_id, created_at) VALUES (?, ?, ?, ?, ?) " +
    "RETURNING seq";
  return {
    name: "tree-only",
    kind,
    file,
    write: (input) => {
      db.exec("BEGIN IMMEDIATE");
      const known = index.find([input.chunkHash, input.fileHash, input.dirHash, input.rootHash]);
      const store = (hash: string, body: string | Uint8Array, base: number | null) => {
        let id = known.get(hash);
        if (id === undefined) {
          const bytes = typeof body === "string" ? utf8(body) : body;
          id = Number(exec(get, insert, raw(hash), bytes, base, base ? 1 : 0)[0][0]);
          index.added(hash, id);
        }
        return id;
      };
      store(input.chunkHash, input.content, null);
      store(input.fileHash, input.fileBody, null);
      lastDir = store(
        input.dirHash,
        input.dirBody,
        input.kind === "new" && lastDir ? lastDir : null,
      );
      const root = store(input.rootHash, input.rootBody, null);
      exec(get, STEP_STATEMENTS.fence, 1);
      exec(get, event, 1, input.eventBody, input.rootHash, root, Date.now());
      index.maybeFill(input.step);
      db.exec("COMMIT");
      events++;
    },
    verify: () => count(db, "SELECT count(*) FROM event", events, "tree-only"),
    pragma: (sql) => db.exec(sql),
    [Symbol.dispose]: () => db.close(),
  };
}

/**
 * `minimal`: what a step of a content-addressed Workspace with a journal
 * stores, and nothing else: its chunk and its three objects appended to one
 * table (hash beside each, no index), its event with its root's hash and id
 * in the event table. Nothing read: no dedupe probe, no fence, no live table.
 */
function minimal(file: string, kind: Kind): Contender {
  const db = connect(file);
  db.exec(
    "CREATE TABLE ws_blob (id INTEGER PRIMARY KEY, hash BLOB NOT NULL, body BLOB NOT NULL, " +
      "base INTEGER, depth INTEGER NOT NULL DEFAULT 0) STRICT",
  );
  db.exec(
    "CREATE TABLE event (seq INTEGER PRIMARY KEY, execution INTEGER NOT NULL, body TEXT NOT NULL, " +
      "root TEXT NOT NULL, root_id INTEGER NOT NULL, created_at INTEGER NOT NULL) STRICT",
  );
  const get = statements(db);
  const insert = "INSERT INTO ws_blob (hash, body, base, depth) VALUES (?, ?, ?, ?) RETURNING id";
  const event =
    "INSERT INTO event (execution, body, root, root_id, created_at) VALUES (?, ?, ?, ?, ?) " +
    "RETURNING seq";
  let events = 0;
  let lastDir = 0;
  return {
    name: "minimal",
    kind,
    file,
    write: (input) => {
      db.exec("BEGIN IMMEDIATE");
      exec(get, insert, raw(input.chunkHash), input.content, null, 0);
      exec(get, insert, raw(input.fileHash), utf8(input.fileBody), null, 0);
      const base = input.kind === "new" && lastDir ? lastDir : null;
      lastDir = Number(
        exec(get, insert, raw(input.dirHash), utf8(input.dirBody), base, base ? 1 : 0)[0][0],
      );
      const [[root]] = exec(get, insert, raw(input.rootHash), utf8(input.rootBody), null, 0);
      exec(get, event, 1, input.eventBody, input.rootHash, root, Date.now());
      db.exec("COMMIT");
      events++;
    },
    verify: () => count(db, "SELECT count(*) FROM event", events, "minimal"),
    pragma: (sql) => db.exec(sql),
    [Symbol.dispose]: () => db.close(),
  };
}

/** `floor`: the event, the content and one root object appended to one table; nothing read. */
function floor(file: string, kind: Kind): Contender {
  const db = connect(file);
  db.exec("CREATE TABLE log (id INTEGER PRIMARY KEY, body BLOB NOT NULL) STRICT");
  const get = statements(db);
  const insert = "INSERT INTO log (body) VALUES (?)";
  let rows = 0;
  return {
    name: "floor",
    kind,
    file,
    write: (input) => {
      db.exec("BEGIN IMMEDIATE");
      exec(get, insert, input.content);
      exec(get, insert, utf8(input.rootBody));
      exec(get, insert, utf8(input.eventBody));
      db.exec("COMMIT");
      rows += 3;
    },
    verify: () => count(db, "SELECT count(*) FROM log", rows, "floor"),
    pragma: (sql) => db.exec(sql),
    [Symbol.dispose]: () => db.close(),
  };
}

/** The contenders' names, in table order. */
const LAYOUTS = ["today", "narrow", "append", "merged", "tree-only", "minimal", "floor"] as const;

/** Opens every contender in `dir`: bare, then per kind the real path and each layout. */
async function openAll(dir: string): Promise<Contender[]> {
  const all: Contender[] = [
    bare(`${dir}/bare.sqlite`),
    bare(`${dir}/bare-256.sqlite`, true),
  ];
  for (const kind of ["overwrite", "new"] as const) {
    all.push(await real(`${dir}/real-${kind}.sqlite`, kind));
    for (const layout of LAYOUTS) {
      const file = `${dir}/${layout}-${kind}.sqlite`;
      all.push(
        layout === "today"
          ? await today(file, kind)
          : layout === "narrow"
          ? await narrow(file, kind)
          : layout === "append" || layout === "merged"
          ? await appended(file, kind, layout === "merged")
          : layout === "tree-only"
          ? await treeOnly(file, kind)
          : layout === "minimal"
          ? minimal(file, kind)
          : floor(file, kind),
      );
    }
  }
  return all;
}

/** Each contender's own step counter. */
function stepper(contender: Contender): () => StepInput {
  let step = 0;
  return () => prepare(step++, contender.kind);
}

/**
 * WAL frames per step and the tables their pages belong to: `warmup` steps
 * (`synchronous=OFF`, checkpoints as in a run), then the log emptied and
 * `FRAME_STEPS` steps under `FULL` with checkpoints off.
 */
async function countFrames(
  dir: string,
  warmup: number,
): Promise<Map<Contender, { frames: number; tables: Map<string, number> }>> {
  const all = await openAll(dir);
  const result = new Map<Contender, { frames: number; tables: Map<string, number> }>();
  for (const contender of all) {
    const next = stepper(contender);
    contender.pragma("PRAGMA synchronous = OFF");
    for (let i = 0; i < warmup; i++) await contender.write(next());
    contender.pragma("PRAGMA wal_checkpoint(TRUNCATE)");
    contender.pragma("PRAGMA wal_autocheckpoint = 0");
    contender.pragma("PRAGMA synchronous = FULL");
    for (let i = 0; i < FRAME_STEPS; i++) await contender.write(next());
    const wal = Deno.readFileSync(`${contender.file}-wal`);
    const frameBytes = PAGE_SIZE + 24;
    const frames = Math.round((wal.length - 32) / frameBytes);
    const pages = new Map<number, string>();
    const db = new DatabaseSync(contender.file, { readOnly: true });
    for (const row of db.prepare("SELECT name, pageno FROM dbstat").all()) {
      pages.set(Number(row.pageno), String(row.name));
    }
    db.close();
    const tables = new Map<string, number>();
    const view = new DataView(wal.buffer, wal.byteOffset, wal.byteLength);
    for (let frame = 0; frame < frames; frame++) {
      const page = view.getUint32(32 + frame * frameBytes);
      const table = page === 1 ? "page 1" : pages.get(page) ?? "freelist";
      tables.set(table, (tables.get(table) ?? 0) + 1 / FRAME_STEPS);
    }
    contender.verify();
    result.set(contender, { frames: frames / FRAME_STEPS, tables });
  }
  for (const contender of all) contender[Symbol.dispose]();
  return result;
}

interface Timing {
  wall: number[];
  cpu: number[];
}

/** Warms every contender up, then times them in rotating blocks for `rounds` rounds. */
async function time(all: readonly Contender[], rounds: number): Promise<Map<Contender, Timing>> {
  const steps = new Map(all.map((contender) => [contender, stepper(contender)]));
  for (const contender of all) {
    const next = steps.get(contender)!;
    for (let i = 0; i < WARMUP; i++) await contender.write(next());
  }
  const timings = new Map(all.map((contender) => [contender, { wall: [], cpu: [] } as Timing]));
  for (let round = 0; round < rounds; round++) {
    for (let turn = 0; turn < all.length; turn++) {
      const contender = all[(round + turn) % all.length];
      const next = steps.get(contender)!;
      const timing = timings.get(contender)!;
      for (let call = 0; call < BLOCK; call++) {
        const input = next();
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        const pending = contender.write(input);
        if (pending) await pending;
        const t1 = performance.now();
        const c1 = process.cpuUsage(c0);
        timing.wall.push(t1 - t0);
        timing.cpu.push((c1.user + c1.system) / 1000);
      }
    }
  }
  for (const contender of all) contender.verify();
  return timings;
}

const median = (values: readonly number[]) => summarize({ ms: values }).medianMs;
const mean = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / values.length;

/** The timed table: frames, wall and CPU per step, ratios, and the projection of the real effect. */
function timingTable(
  all: readonly Contender[],
  timings: Map<Contender, Timing>,
  frames: Map<string, { frames: number }>,
): string {
  const key = (contender: Contender) => `${contender.name}/${contender.kind}`;
  const byKey = new Map(all.map((contender) => [key(contender), timings.get(contender)!]));
  const bareWall = median(byKey.get("bare/overwrite")!.wall);
  const bareCpu = median(byKey.get("bare/overwrite")!.cpu);
  const rows = all.map((contender) => {
    const timing = timings.get(contender)!;
    const wall = median(timing.wall);
    // The real effect with today's SQLite work replaced by this layout's: the work outside
    // SQLite (gate, publication's texts and hashes, journal, zod, the seam) does not depend on it.
    const projected = contender.name === "real" || contender.name.startsWith("bare")
      ? "–"
      : `${
        fixed(
          (median(byKey.get(`real/${contender.kind}`)!.wall) -
            median(byKey.get(`today/${contender.kind}`)!.wall) + wall) / bareWall,
          2,
        )
      }×`;
    return [
      contender.name.startsWith("bare") ? contender.name : `${contender.name}, ${contender.kind}`,
      fixed(frames.get(key(contender))!.frames, 2),
      fixed(wall, 3),
      fixed(mean(timing.wall), 3),
      fixed(median(timing.cpu), 3),
      `${fixed(wall / bareWall, 2)}×`,
      `${fixed(median(timing.cpu) / bareCpu, 2)}×`,
      projected,
    ];
  });
  return markdownTable(
    [
      "contender, step",
      "WAL frames / step",
      "wall median ms",
      "wall mean ms",
      "CPU median ms",
      "wall ÷ bare",
      "CPU ÷ bare",
      "real effect with this layout ÷ bare",
    ],
    rows,
    "lrrrrrrr",
  );
}

if (import.meta.main) {
  // Arguments: timed rounds (0: frames only), and steps before the frames are counted.
  const rounds = Number(Deno.args[0] ?? 40);
  const frameWarmup = Number(Deno.args[1] ?? FRAME_WARMUP);
  console.error(`floor layouts: counting WAL frames (${FRAME_STEPS} steps after ${frameWarmup})`);
  const frames = new Map<string, { frames: number; tables: Map<string, number> }>();
  {
    await using frameDir = await temporaryDirectory();
    for (const [contender, counted] of await countFrames(frameDir.path, frameWarmup)) {
      frames.set(`${contender.name}/${contender.kind}`, counted);
    }
  }
  if (rounds > 0) {
    console.error(`floor layouts: timing, ${rounds} rounds of blocks of ${BLOCK}`);
    await using dir = await temporaryDirectory();
    const all = await openAll(dir.path);
    const timings = await time(all, rounds);
    for (const contender of all) contender[Symbol.dispose]();
    console.log(timingTable(all, timings, frames));
    console.log("");
  }
  const byTable = [...frames].map(([name, counted]) => [
    name,
    fixed(counted.frames, 2),
    [...counted.tables].sort((a, b) => b[1] - a[1])
      .map(([table, n]) => `${table} ${fixed(n, 2)}`).join(", "),
  ]);
  console.log(markdownTable(["contender", "frames / step", "by table"], byTable, "lrl"));
  const load = Deno.loadavg().map((n) => fixed(n, 2)).join(" ");
  console.log(
    `\n${rounds} rounds × ${BLOCK} calls; frames after ${frameWarmup} steps; load ${load}`,
  );
}
