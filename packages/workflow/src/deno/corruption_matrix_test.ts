/**
 * The corruption matrix: a run database that is not ours, newer, partially
 * initialized or damaged is refused with its typed error by every command
 * that reaches it, in-process and through the CLI (exit 1, one message, no
 * stack trace), and the file is byte-for-byte unchanged afterwards, with no
 * WAL left holding changes.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import {
  WorkflowDatabaseCorruptError,
  WorkflowDatabaseFormatError,
  WorkflowSchemaVersionError,
} from "../contracts/workflow-errors.ts";
import {
  assertRefused,
  type DatabaseFiles,
  eachConcurrently,
  fixtureProgram,
  quietIo,
  referenceRun,
  restoreDatabase,
  RUN,
  runPath,
  workflow,
} from "./_test-workflow-cli.ts";
import { LocalWorkflowHost } from "./local-workflow-host.ts";
import { APPLICATION_ID, openRunDatabase } from "./run-database.ts";

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
const RECORD: Reach[] = ["status", ...JOURNAL];

interface Case {
  name: string;
  /** The reference state it is made from. */
  from: "suspendedFirst" | "answeredFirst";
  /** Damages a copy of the run database at `path` (or replaces it). */
  damage(path: string): Promise<void> | void;
  error: Refusal;
  message: RegExp;
  reach: Reach[];
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
    name: "a newer schema version (user_version 2)",
    from: "suspendedFirst",
    damage: (path) => edit(path, "PRAGMA user_version = 2"),
    error: WorkflowSchemaVersionError,
    message: /schema version 2, newer than this xmd reads \(1\)\. Upgrade xmd/,
    reach: EVERYTHING,
  },
  {
    name: "a newer schema version (schema_version row 2)",
    from: "suspendedFirst",
    damage: (path) => edit(path, "UPDATE xmd_meta SET value = '2' WHERE key = 'schema_version'"),
    error: WorkflowSchemaVersionError,
    message: /schema version 2, newer than this xmd reads \(1\)/,
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
];

Deno.test("corruption matrix: each damaged database is refused with its typed error and left byte-identical", async () => {
  const reference = await referenceRun();
  const [firstId] = reference.suspensions;
  const program = await fixtureProgram();

  await eachConcurrently(CASES, 3, (c) => c.name, async (c) => {
    const runs = await restoreDatabase(reference[c.from]);
    const path = runPath(runs);
    await c.damage(path);
    const before = await files(path);
    assert.equal(before.wal.length, 0, "the damaged file is complete on its own");
    const unchanged = async (after: string) => {
      const now = await files(path);
      assert.ok(equalBytes(now.main, before.main), `the file changed after ${after}`);
      assert.equal(now.wal.length, 0, `a WAL holds changes after ${after}`);
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
    for (const reach of c.reach) {
      await assert.rejects(attempts[reach](), (error: Error) => {
        assert.ok(error instanceof c.error, `${reach}: ${error.name}: ${error.message}`);
        assert.match(error.message, c.message, reach);
        return true;
      });
      await unchanged(reach);
    }

    // Through the CLI: the first inspection that reads the damage, and resume.
    const read = (["status", "history"] as const).find((command) => c.reach.includes(command));
    for (const args of [...(read ? [[read, RUN]] : []), ["resume", RUN]]) {
      assertRefused(await workflow(runs, args), c.message);
      await unchanged(`xmd workflow ${args[0]}`);
    }
    await Deno.remove(runs, { recursive: true });
  });
});

async function files(path: string): Promise<DatabaseFiles> {
  const read = async (file: string) => {
    try {
      return await Deno.readFile(file);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return new Uint8Array();
      throw error;
    }
  };
  return { main: await read(path), wal: await read(`${path}-wal`) };
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, index) => byte === b[index]);
}
