/**
 * The corruption matrix: a run database that is not ours, newer, partially
 * initialized or damaged is refused with its typed error by every command
 * that reaches it, in-process and through the CLI (exit 1, one message, no
 * stack trace), and its files (main file, write-ahead log, wal-index) are
 * byte-for-byte unchanged afterwards, with no file created or removed beside
 * it. The WAL cases start from a run a killed command left with committed
 * frames in its write-ahead log (WF-41, WF-42, WF-43).
 */
import assert from "node:assert/strict";
import { canonicalJson, sha256Hex } from "@xmd/core";
import { DatabaseSync } from "node:sqlite";
import {
  WorkflowDatabaseCorruptError,
  WorkflowDatabaseFormatError,
  WorkflowSchemaVersionError,
} from "../contracts/workflow-errors.ts";
import {
  answerArgs,
  assertRefused,
  type DatabaseFiles,
  eachConcurrently,
  fixtureProgram,
  quietIo,
  readDatabaseAt,
  referenceRun,
  restoreDatabase,
  RUN,
  runPath,
  sameFiles,
  sideFiles,
  START,
  type WalReference,
  walReferenceRun,
  workflow,
} from "./_test-workflow-cli.ts";
import { definitionHash } from "../execution/verify-run.ts";
import { LocalWorkflowHost } from "./local-workflow-host.ts";
import { APPLICATION_ID, openRunDatabase } from "./run-database.ts";
import { scanWal } from "./wal-file.ts";

type Refusal =
  | typeof WorkflowDatabaseFormatError
  | typeof WorkflowSchemaVersionError
  | typeof WorkflowDatabaseCorruptError;

/** What reaches the database: opening it directly, and each host command. */
type Reach = "open" | "status" | "history" | "resume" | "answer" | "cancel" | "start" | "delete";

/** Refused by everything: the file is not (or not yet, or no longer) a run database. */
const EVERYTHING: Reach[] = [
  "open",
  "status",
  "history",
  "resume",
  "answer",
  "cancel",
  "start",
  "delete",
];

/**
 * Refused by every command that reads the damaged rows or would write: the
 * schema is intact, so `open` succeeds and `delete` (the way out) works.
 */
const JOURNAL: Reach[] = ["history", "resume", "answer", "cancel", "start"];
/** Refused by every command that writes or executes: the whole run is verified first (WF-45). */
const WRITERS: Reach[] = ["resume", "answer", "cancel", "start"];
/** The same, but `start` meets a run whose stored definition or props differ (WF-23) first. */
const CONTINUERS: Reach[] = ["resume", "answer", "cancel"];
const RECORD: Reach[] = ["status", ...JOURNAL];

/** A reference state: a database at rest, or one a killed command left with a WAL (`wal:…`). */
type From = "suspendedFirst" | "answeredFirst" | "completed" | `wal:${keyof WalReference}`;

interface Case {
  name: string;
  /** The reference state it is made from. */
  from: From;
  /** Damages a copy of the run database at `path` (or replaces it). */
  damage(path: string): Promise<void> | void;
  error: Refusal;
  message: RegExp;
  reach: Reach[];
  /**
   * What also runs through the CLI: by default the first inspection that
   * reads the damage, and resume; `every`: status, list, resume, start and
   * answer, each a subprocess.
   */
  cli?: "every";
}

/** Runs SQL on the database at `path` with a plain connection, as an outside tool would. */
function edit(path: string, sql: string): void {
  const db = new DatabaseSync(path);
  try {
    db.exec(sql);
  } finally {
    db.close();
  }
}

/** The page size recorded in a database's header. */
async function pageSizeOf(path: string): Promise<number> {
  const header = (await Deno.readFile(path)).subarray(0, 100);
  const size = new DataView(header.buffer).getUint16(16);
  return size === 1 ? 65536 : size;
}

/** The byte offset of WAL frame `frame` (1-based), or of its page when `page`. */
async function frameOffset(path: string, frame: number, page = false): Promise<number> {
  const pageSize = await pageSizeOf(path);
  return 32 + (frame - 1) * (24 + pageSize) + (page ? 24 + 100 : 0);
}

/** The number of whole frames in the WAL of the database at `path`. */
async function frameCount(path: string): Promise<number> {
  const size = (await Deno.stat(`${path}-wal`)).size;
  return Math.floor((size - 32) / (24 + await pageSizeOf(path)));
}

/** Inverts one byte of the WAL at `offset`. */
async function flipWalByte(path: string, offset: number): Promise<void> {
  const bytes = await Deno.readFile(`${path}-wal`);
  bytes[offset] ^= 0xff;
  await Deno.writeFile(`${path}-wal`, bytes);
}

const NOT_OURS = /is not a SQLite database|is a SQLite database but not an xmd run/;

const CASES: Case[] = [
  {
    name: "random bytes",
    from: "suspendedFirst",
    damage: (path) => Deno.writeFile(path, crypto.getRandomValues(new Uint8Array(8192))),
    error: WorkflowDatabaseFormatError,
    message: NOT_OURS,
    reach: EVERYTHING,
  },
  {
    name: "a text file",
    from: "suspendedFirst",
    damage: (path) => Deno.writeTextFile(path, "# Notes\n\nNot a database at all.\n".repeat(10)),
    error: WorkflowDatabaseFormatError,
    message: NOT_OURS,
    reach: EVERYTHING,
  },
  {
    name: "a foreign SQLite database (another application_id)",
    from: "suspendedFirst",
    damage: async (path) => {
      await Deno.remove(path);
      edit(
        path,
        "PRAGMA application_id = 1179403647; PRAGMA user_version = 1; " +
          "CREATE TABLE xmd_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT; " +
          "INSERT INTO xmd_meta VALUES ('format', 'xmd-run'), ('schema_version', '1');",
      );
    },
    error: WorkflowDatabaseFormatError,
    message: NOT_OURS,
    reach: EVERYTHING,
  },
  {
    name: "a newer schema version (user_version 3)",
    from: "suspendedFirst",
    damage: (path) => edit(path, "PRAGMA user_version = 3"),
    error: WorkflowSchemaVersionError,
    message: /schema version 3, newer than this xmd reads \(2\)\. Upgrade xmd/,
    reach: EVERYTHING,
  },
  {
    name: "a newer schema version (schema_version row 3)",
    from: "suspendedFirst",
    damage: (path) => edit(path, "UPDATE xmd_meta SET value = '3' WHERE key = 'schema_version'"),
    error: WorkflowSchemaVersionError,
    message: /schema version 3, newer than this xmd reads \(2\)/,
    reach: EVERYTHING,
  },
  {
    name: "a partial initialization (application_id set, user_version 0)",
    from: "suspendedFirst",
    damage: async (path) => {
      await Deno.remove(path);
      edit(path, `PRAGMA application_id = ${APPLICATION_ID}; CREATE TABLE xmd_meta (key TEXT)`);
    },
    error: WorkflowDatabaseCorruptError,
    message: /initialization did not finish/,
    reach: EVERYTHING,
  },
  {
    name: "a partial initialization (tables without the schema_version row)",
    from: "suspendedFirst",
    damage: (path) => edit(path, "DELETE FROM xmd_meta WHERE key = 'schema_version'"),
    error: WorkflowDatabaseCorruptError,
    message: /initialization did not finish \(no schema version\)/,
    reach: EVERYTHING,
  },
  {
    name: "an altered table",
    from: "suspendedFirst",
    damage: (path) => edit(path, "ALTER TABLE answer ADD COLUMN note TEXT"),
    error: WorkflowDatabaseCorruptError,
    message: /table answer is missing or altered/,
    reach: EVERYTHING,
  },
  {
    name: "a truncated file",
    from: "suspendedFirst",
    damage: async (path) => {
      const bytes = await Deno.readFile(path);
      await Deno.writeFile(path, bytes.subarray(0, bytes.length / 2));
    },
    error: WorkflowDatabaseCorruptError,
    message: /SQLite reports it damaged/,
    reach: EVERYTHING,
  },
  {
    name: "a damaged b-tree page of the journal",
    from: "suspendedFirst",
    damage: async (path) => {
      const db = new DatabaseSync(path);
      const page = Number(db.prepare("PRAGMA page_size").get()!.page_size);
      const root = Number(
        db.prepare("SELECT rootpage FROM sqlite_master WHERE name = 'event'").get()!.rootpage,
      );
      db.close();
      const bytes = await Deno.readFile(path);
      bytes.fill(0xff, (root - 1) * page, (root - 1) * page + 16);
      await Deno.writeFile(path, bytes);
    },
    error: WorkflowDatabaseCorruptError,
    message: /SQLite reports it damaged/,
    reach: RECORD,
  },
  {
    name: "a damaged run record (status 'bogus')",
    from: "suspendedFirst",
    damage: (path) => edit(path, "UPDATE run SET status = 'bogus'"),
    error: WorkflowDatabaseCorruptError,
    message: /its run record is damaged \(status\)/,
    reach: RECORD,
  },
  {
    name: "a damaged stop reason",
    from: "suspendedFirst",
    damage: (path) => edit(path, `UPDATE run SET stop_reason = '{"kind":"journal"}'`),
    error: WorkflowDatabaseCorruptError,
    message: /its run stop reason is damaged/,
    reach: RECORD,
  },
  {
    name: "a damaged execution row (kind 'bogus')",
    from: "suspendedFirst",
    damage: (path) => edit(path, "UPDATE execution SET kind = 'bogus'"),
    error: WorkflowDatabaseCorruptError,
    message: /its execution is damaged \(kind\)/,
    reach: ["status", "history"],
  },
  {
    name: "a damaged root of the last journal event",
    from: "answeredFirst",
    damage: (path) =>
      edit(path, "UPDATE event SET root = 'not a root' WHERE seq = (SELECT max(seq) FROM event)"),
    error: WorkflowDatabaseCorruptError,
    message: /its journal event \d+ is damaged \(root\)/,
    reach: RECORD,
  },
  {
    name: "a journal event body that is not JSON",
    from: "answeredFirst",
    damage: (path) => edit(path, "UPDATE event SET body = '{not json' WHERE seq = 1"),
    error: WorkflowDatabaseCorruptError,
    message: /its journal event 1 is not JSON/,
    reach: JOURNAL,
  },
  {
    name: "a journal event body that is not an event",
    from: "answeredFirst",
    damage: (path) => edit(path, `UPDATE event SET body = '{"type":"yield"}' WHERE seq = 2`),
    error: WorkflowDatabaseCorruptError,
    message: /its journal event 2 is damaged/,
    reach: JOURNAL,
  },
  {
    name: "a retained source that no longer matches its hash",
    from: "answeredFirst",
    damage: (path) => edit(path, "UPDATE source SET text = text || ' ' WHERE root = 1"),
    error: WorkflowDatabaseCorruptError,
    message: /does not match its hash/,
    reach: ["resume", "answer", "cancel", "start"],
  },
  {
    name: "a pending answer that is not JSON",
    from: "answeredFirst",
    damage: (path) => edit(path, "UPDATE answer SET value = '{nope'"),
    error: WorkflowDatabaseCorruptError,
    message: /its answer is not JSON/,
    reach: ["resume", "answer", "cancel", "start"],
  },
  // A run whose tables parse but disagree (WF-45, WF-46): verified whole
  // before anything is written, refused instead of run through or failed.
  {
    name: "WF-45 a retained source row without a root",
    from: "answeredFirst",
    damage: (path) => edit(path, "UPDATE source SET root = 0"),
    error: WorkflowDatabaseCorruptError,
    message: /its retained definition has no root document/,
    reach: WRITERS,
  },
  {
    name: "WF-45 a target naming no heading (its definition hash recomputed to match)",
    from: "answeredFirst",
    damage: async (path) => {
      const hash = definitionHash(await fixtureProgram(), "Nowhere");
      edit(path, `UPDATE run SET target = 'Nowhere', definition_hash = '${hash}'`);
    },
    error: WorkflowDatabaseCorruptError,
    message: /its retained definition does not load/,
    reach: CONTINUERS,
  },
  {
    name: "WF-45 a wrong definition hash",
    from: "answeredFirst",
    damage: (path) => edit(path, `UPDATE run SET definition_hash = '${"0".repeat(64)}'`),
    error: WorkflowDatabaseCorruptError,
    message: /its retained definition does not match its definition hash/,
    reach: CONTINUERS,
  },
  {
    name: "WF-45 props that no longer match their digest",
    from: "answeredFirst",
    damage: (path) => edit(path, `UPDATE props SET value = '{"name":"Eve"}'`),
    error: WorkflowDatabaseCorruptError,
    message: /its props do not match their digest/,
    reach: WRITERS,
  },
  {
    name: "WF-45 props and digest changed together, unlike the journal's props event",
    from: "answeredFirst",
    damage: (path) =>
      edit(
        path,
        `UPDATE props SET value = '{"name":"Eve"}'; UPDATE run SET props_hash = '${
          sha256Hex(canonicalJson({ name: "Eve" }))
        }'`,
      ),
    error: WorkflowDatabaseCorruptError,
    message: /its journal records other props than the run holds/,
    reach: CONTINUERS,
  },
  {
    name: "WF-45 a gap in the event sequence",
    from: "answeredFirst",
    damage: (path) => edit(path, "DELETE FROM event WHERE seq = 2"),
    error: WorkflowDatabaseCorruptError,
    message: /its journal has no event 2/,
    reach: WRITERS,
  },
  {
    name: "WF-45 a journal event naming an execution that does not exist",
    from: "answeredFirst",
    damage: (path) => edit(path, "UPDATE event SET execution = 9 WHERE seq = 1"),
    error: WorkflowDatabaseCorruptError,
    message: /its journal event 1 names an execution that does not exist/,
    reach: WRITERS,
  },
  {
    name: "WF-45 missing execution rows",
    from: "answeredFirst",
    damage: (path) => edit(path, "DELETE FROM execution"),
    error: WorkflowDatabaseCorruptError,
    message: /its executions are not 1 to 1/,
    reach: WRITERS,
  },
  {
    name: "WF-45 an execution that did not end as the run says",
    from: "answeredFirst",
    damage: (path) => edit(path, "UPDATE execution SET ended_at = NULL, outcome = NULL"),
    error: WorkflowDatabaseCorruptError,
    message: /its execution 1 did not end as the run says/,
    reach: WRITERS,
  },
  {
    name: "WF-45 suspended without a stop reason",
    from: "answeredFirst",
    damage: (path) => edit(path, "UPDATE run SET stop_reason = NULL"),
    error: WorkflowDatabaseCorruptError,
    message: /it is suspended but has no stop reason naming its question/,
    reach: WRITERS,
  },
  {
    name: "WF-45 a pending answer that no longer matches its schema",
    from: "answeredFirst",
    damage: (path) => edit(path, `UPDATE answer SET value = '"yes"'`),
    error: WorkflowDatabaseCorruptError,
    message: /its answer to first-\d+ does not match the question's schema/,
    reach: WRITERS,
  },
  {
    name: "WF-45 a completed run whose journal lacks its root Close",
    from: "completed",
    damage: (path) => edit(path, "DELETE FROM event WHERE seq = (SELECT max(seq) FROM event)"),
    error: WorkflowDatabaseCorruptError,
    message: /it is completed but its journal lacks its root Close/,
    reach: WRITERS,
  },
  {
    name: "WF-45 a live Workspace that is not its recorded root, found by answer and cancel too",
    from: "answeredFirst",
    damage: (path) =>
      edit(
        path,
        "INSERT INTO ws_inode (ino, kind, mode, size, target, chunks, nlink, hash) " +
          "VALUES (1000, 'dir', 493, 0, NULL, NULL, 2, NULL); " +
          "INSERT INTO ws_dirent (parent, name, ino) VALUES (1, 'stray', 1000)",
      ),
    error: WorkflowDatabaseCorruptError,
    message: /its current Workspace root is not the one its journal last recorded/,
    reach: WRITERS,
  },
  {
    name: "WF-46 a file holding another run than the one it is named for",
    from: "answeredFirst",
    damage: (path) => edit(path, "UPDATE run SET id = 'other'"),
    error: WorkflowDatabaseCorruptError,
    message: /its file holds another run than the one it is named for/,
    reach: ["status", "history", ...WRITERS],
  },
  // A run with a write-ahead log (WF-41, WF-42): what SQLite would silently
  // cut short is refused before SQLite opens anything.
  {
    name: "WF-41 a flipped byte in an early WAL frame's page, committed frames after it",
    from: "wal:suspendedFirst",
    damage: async (path) => flipWalByte(path, await frameOffset(path, 1, true)),
    error: WorkflowDatabaseCorruptError,
    message: /write-ahead log frame 1 is damaged, and committed frames follow it/,
    reach: EVERYTHING,
    cli: "every",
  },
  {
    name: "WF-41 a flipped salt byte in a WAL frame header, committed frames after it",
    from: "wal:suspendedFirst",
    damage: async (path) => flipWalByte(path, await frameOffset(path, 2) + 9),
    error: WorkflowDatabaseCorruptError,
    message: /write-ahead log frame 2 is damaged, and committed frames follow it/,
    reach: EVERYTHING,
    cli: "every",
  },
  {
    name: "WF-41 a damaged WAL header",
    from: "wal:suspendedFirst",
    damage: (path) => flipWalByte(path, 13),
    error: WorkflowDatabaseCorruptError,
    message: /write-ahead log header fails its checksum/,
    reach: EVERYTHING,
    cli: "every",
  },
  {
    name: "WF-41 a flipped byte in the WAL's last frame (its wal-index survives)",
    from: "wal:suspendedFirst",
    damage: async (path) =>
      flipWalByte(path, await frameOffset(path, await frameCount(path), true)),
    error: WorkflowDatabaseCorruptError,
    message: /write-ahead log holds \d+ of the \d+ committed frames its wal-index records/,
    reach: EVERYTHING,
    cli: "every",
  },
  {
    name: "WF-41 a truncated WAL (its wal-index survives)",
    from: "wal:suspendedFirst",
    damage: async (path) => {
      const bytes = await Deno.readFile(`${path}-wal`);
      await Deno.writeFile(`${path}-wal`, bytes.subarray(0, await frameOffset(path, 3)));
    },
    error: WorkflowDatabaseCorruptError,
    message: /write-ahead log holds \d+ of the \d+ committed frames its wal-index records/,
    reach: EVERYTHING,
    cli: "every",
  },
  {
    name: "WF-41 a missing WAL (its wal-index survives)",
    from: "wal:suspendedFirst",
    damage: (path) => Deno.remove(`${path}-wal`),
    error: WorkflowDatabaseCorruptError,
    message: /write-ahead log is missing, and its wal-index records \d+ committed frames/,
    reach: EVERYTHING,
    cli: "every",
  },
  {
    name: "WF-41 a flipped byte in the WAL of a stored answer, committed frames after it",
    from: "wal:answeredFirst",
    damage: async (path) => flipWalByte(path, await frameOffset(path, 1, true)),
    error: WorkflowDatabaseCorruptError,
    message: /write-ahead log frame 1 is damaged, and committed frames follow it/,
    reach: EVERYTHING,
    cli: "every",
  },
  {
    name: "WF-42 no run in the database, its creation damaged in the WAL (no wal-index)",
    from: "wal:created",
    damage: async (path) => {
      await flipWalByte(path, await frameOffset(path, await frameCount(path), true));
      await Deno.remove(`${path}-shm`);
    },
    error: WorkflowDatabaseCorruptError,
    message: /holds no run, while its write-ahead log holds frames SQLite cannot apply/,
    reach: EVERYTHING,
    cli: "every",
  },
];

Deno.test("WF-43 corruption matrix: each damaged database is refused with its typed error and left byte-identical", async () => {
  const reference = await referenceRun();
  const wal = await walReferenceRun();
  const [firstId] = reference.suspensions;
  const program = await fixtureProgram();
  const state = (from: From): DatabaseFiles =>
    from.startsWith("wal:")
      ? wal[from.slice(4) as keyof WalReference]
      : reference[from as "suspendedFirst" | "answeredFirst" | "completed"];

  await eachConcurrently(CASES, 3, (c) => c.name, async (c) => {
    const runs = await restoreDatabase(state(c.from));
    const path = runPath(runs);
    if (c.from.startsWith("wal:")) {
      const scan = scanWal(`${path}-wal`, await pageSizeOf(path));
      assert.ok(scan.committedFrames > 0, "the WAL holds committed frames before the damage");
    }
    await c.damage(path);
    const before = await readDatabaseAt(path);
    const sides = await sideFiles(path);
    if (!c.from.startsWith("wal:")) {
      assert.equal(before.wal.length, 0, "the damaged file is complete on its own");
    }
    // Reading a log needs its wal-index: SQLite creates a missing one (derived
    // from the log, holding no data); nothing else may appear or change.
    const indexMayAppear = sides.includes("-wal") && !sides.includes("-shm");
    const unchanged = async (after: string) => {
      const now = await readDatabaseAt(path);
      if (indexMayAppear) now.shm = before.shm;
      assert.deepEqual(sameFiles(now, before), [], `changed after ${after}`);
      const present = (await sideFiles(path)).filter((side) => !indexMayAppear || side !== "-shm");
      assert.deepEqual(present, sides, `files appeared or went after ${after}`);
    };

    const host = new LocalWorkflowHost(runs);
    const attempts: Record<Reach, () => Promise<unknown>> = {
      open: () => openRunDatabase(path, `run "${RUN}"`, { create: false }),
      status: () => host.inspect(RUN),
      history: () => host.history(RUN),
      resume: () => host.resume(RUN, quietIo()),
      answer: () => host.answer(RUN, firstId, { ok: true }, true),
      cancel: () => host.cancel(RUN),
      start: () => host.start({ id: RUN, program, props: { name: "Ada" } }, quietIo()),
      delete: () => host.delete(RUN),
    };
    if (c.reach.includes("status")) {
      // `list` reads what `status` reads of every run: it reports the file and lists nothing of it.
      const listing = await host.list();
      assert.deepEqual(listing.runs, [], "list");
      assert.equal(listing.unreadable.length, 1, "list");
      assert.match(listing.unreadable[0].reason, c.message, "list");
      await unchanged("list");
    }
    for (const reach of c.reach) {
      await assert.rejects(attempts[reach](), (error: Error) => {
        assert.ok(error instanceof c.error, `${reach}: ${error.name}: ${error.message}`);
        assert.match(error.message, c.message, reach);
        return true;
      });
      await unchanged(reach);
    }

    // Through the CLI: the first inspection that reads the damage and resume,
    // or the case's commands (`list` warns about the file and lists the rest).
    const read = (["status", "history"] as const).find((command) => c.reach.includes(command));
    const commands = c.cli === "every"
      ? [["status", RUN], ["list"], ["resume", RUN], [...START], answerArgs(firstId)]
      : [...(read ? [[read, RUN]] : []), ["resume", RUN]];
    for (const args of commands) {
      const outcome = await workflow(runs, args);
      if (args[0] === "list") {
        assert.equal(outcome.code, 0, outcome.stderr);
        assert.match(outcome.stderr, c.message);
      } else {
        assertRefused(outcome, c.message);
      }
      await unchanged(`xmd workflow ${args[0]}`);
    }
    await Deno.remove(runs, { recursive: true });
  });
});
