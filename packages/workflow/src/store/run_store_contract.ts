/**
 * The storage engine's contract, written once and run against every driver of
 * the SQL seam (`node:sqlite` locally, a SQLite-backed Durable Object under
 * workerd). Each case receives a fresh, empty database through its seam and
 * throws on the first broken promise, so a driver's test only has to open a
 * database per case and report what each case threw.
 *
 * Every refusal is checked the same way: the typed error's name, and a dump of
 * `sqlite_master` plus every row that is identical before and after.
 *
 * @module
 */
import { type JournalEvent, sha256Hex } from "@xmd/core/protocol";
import type { SqlRow, SqlSeam, SqlValue } from "../sql/sql-seam.ts";
import {
  FORMAT,
  initializeSchema,
  isEmptyDatabase,
  recognizeSchema,
  TABLES,
  upgradeSchema,
} from "./schema.ts";
import { type NewRun, RunStore } from "./run-store.ts";
import { liveRootOf } from "../workspace/live-root.ts";
import { materializeRoot } from "../workspace/materialize-root.ts";
import { forgetHashes, publicationCommitted, publishRoot } from "../workspace/publish-root.ts";
import { fileObject, objectHash, treeObject } from "../workspace/root-format.ts";
import { verifyRoot } from "../workspace/verify-root.ts";
import { ROOT_INO, Workspace } from "../workspace/workspace.ts";

/** One promise of the storage engine, checked on a fresh empty database. */
export interface ContractCase {
  /** What is promised, as a sentence. */
  readonly name: string;
  /** Throws when the promise is broken. */
  run(seam: SqlSeam): void;
}

/** What a case did, in a form that crosses a process or a Worker boundary as JSON. */
export interface ContractResult {
  /** The case's name. */
  name: string;
  /** Whether it passed. */
  passed: boolean;
  /** The failure (error name, message and stack), when it did not. */
  failure?: { name: string; message: string; stack?: string };
}

/** Runs one case and reports it instead of throwing. */
export function runContractCase(contractCase: ContractCase, seam: SqlSeam): ContractResult {
  try {
    contractCase.run(seam);
    return { name: contractCase.name, passed: true };
  } catch (error) {
    const failure = error instanceof Error
      ? { name: error.name, message: error.message, stack: error.stack }
      : { name: "Error", message: String(error) };
    return { name: contractCase.name, passed: false, failure };
  }
}

const WHERE = "the contract database";

const ROOT_TEXT = '# Release\n\n<Elicit as="approval">Ship it?</Elicit>\n';
const COMPONENT_TEXT = "Hello from a component.\n";

function newRun(): NewRun {
  return {
    id: "contract-run",
    document: "release.md",
    target: null,
    definitionHash: "a".repeat(64),
    props: { version: "1.2.3", draft: false },
    propsHash: "b".repeat(64),
    sources: [
      { label: "release.md", text: ROOT_TEXT, root: true },
      { label: "components/greet.md", text: COMPONENT_TEXT, root: false },
    ],
  };
}

function effect(n: number): JournalEvent {
  return {
    type: "yield",
    coroutineId: "root",
    description: { type: "log", name: `<Log> release.md:${n}:1` },
    result: { status: "ok", value: n },
  };
}

const SUSPENSION_ID = "root:2";

const REQUEST: JournalEvent = {
  type: "yield",
  coroutineId: "root",
  description: {
    type: "suspension_request",
    name: "<Elicit> release.md:3:1",
    as: "approval",
    suspensionId: SUSPENSION_ID,
    question: "Ship it?",
    schema: { type: "boolean" },
  },
  result: { status: "ok", value: null },
};

const ANSWER: JournalEvent = {
  type: "yield",
  coroutineId: "root",
  description: {
    type: "suspension_answer",
    name: "<Elicit> release.md:3:1",
    as: "approval",
    suspensionId: SUSPENSION_ID,
  },
  result: { status: "ok", value: true },
};

const CLOSE: JournalEvent = {
  type: "close",
  coroutineId: "root",
  result: { status: "ok", value: null },
};

/** A deterministic clock: every reading is one millisecond later. */
function clock(): () => number {
  let now = 1_700_000_000_000;
  return () => now++;
}

function initialized(seam: SqlSeam): RunStore {
  initializeSchema(seam);
  recognizeSchema(seam, WHERE);
  return new RunStore(seam, WHERE, clock());
}

/** A store whose run is `running` under execution 1. */
function running(seam: SqlSeam): RunStore {
  const store = initialized(seam);
  store.create(newRun());
  return store;
}

/** A store whose run is `suspended` on `REQUEST` (event 2), execution 1 closed. */
function suspended(seam: SqlSeam): RunStore {
  const store = running(seam);
  store.append(1, effect(1));
  const eventId = store.append(1, REQUEST);
  store.settle(1, "suspended", { kind: "journal", eventId });
  return store;
}

// Assertions. Kept here rather than imported so the suite bundles into a
// Worker with nothing but the engine.

class ContractFailure extends Error {
  override name = "ContractFailure";
}

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new ContractFailure(message);
}

/**
 * A stable text for rows and JSON values: sorted keys, bigints tagged, bytes
 * as their length and digest (a dump of megabytes of chunks stays cheap).
 */
function stable(value: unknown): string {
  if (value instanceof Uint8Array) return `bytes:${value.length}:${sha256Hex(value)}`;
  if (typeof value === "bigint") return `bigint:${value}`;
  if (value === undefined) return "undefined";
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(stable).join(",")}]`;
  const record = value as Record<string, unknown>;
  return `{${
    Object.keys(record).sort().map((key) => `${JSON.stringify(key)}:${stable(record[key])}`)
      .join(",")
  }}`;
}

function same(actual: unknown, expected: unknown, what: string): void {
  const a = stable(actual);
  const e = stable(expected);
  check(a === e, `${what}: expected ${e}, got ${a}`);
}

function throws(fn: () => unknown, errorName: string | undefined, what: string): Error {
  try {
    fn();
  } catch (error) {
    check(error instanceof Error, `${what}: threw a non-Error ${String(error)}`);
    if (errorName !== undefined) {
      check(
        error.name === errorName,
        `${what}: expected ${errorName}, got ${error.name}: ${error.message}`,
      );
    }
    return error;
  }
  throw new ContractFailure(`${what}: expected ${errorName ?? "an error"}, nothing was thrown`);
}

/**
 * Every schema object and every row of every table the seam can see (a
 * Durable Object's own `_cf_` tables are not ours and are not readable).
 */
export function dump(seam: SqlSeam): string {
  const objects = seam.exec("SELECT type, name, tbl_name, sql FROM sqlite_master")
    .filter((row) => !String(row.name).startsWith("_cf_"))
    .map(stable)
    .sort();
  const tables = seam.exec("SELECT name FROM sqlite_master WHERE type = 'table'")
    .map((row) => String(row.name))
    .filter((name) => !name.startsWith("_cf_"))
    .sort();
  const rows = tables.map((table) =>
    `${table}: ${
      seam.exec(`SELECT * FROM "${table.replaceAll('"', '""')}"`).map(stable).sort().join("\n")
    }`
  );
  return [...objects, ...rows].join("\n");
}

/** Asserts `fn` is refused with `errorName` and leaves the database exactly as it was. */
function refused(seam: SqlSeam, errorName: string | undefined, what: string, fn: () => unknown) {
  const before = dump(seam);
  const error = throws(fn, errorName, what);
  const after = dump(seam);
  check(after === before, `${what}: the refusal changed the database:\n${before}\n---\n${after}`);
  return error;
}

function rows(seam: SqlSeam, sql: string): unknown[] {
  return seam.exec(sql);
}

const SEAM_CASES: ContractCase[] = [
  {
    name: "seam: exec binds positional parameters and returns rows by column name",
    run(seam) {
      seam.exec("CREATE TABLE v (i INTEGER, r REAL, t TEXT, b BLOB, n ANY) STRICT");
      same(
        seam.exec(
          "INSERT INTO v (i, r, t, b, n) VALUES (?, ?, ?, ?, ?)",
          42,
          1.5,
          "tëxt ☃",
          null,
          null,
        ),
        [],
        "a statement without rows",
      );
      seam.exec(
        "INSERT INTO v (i, r, t, b, n) VALUES (?, ?, ?, ?, ?)",
        7n,
        -0.25,
        "",
        new Uint8Array([0, 1, 255]),
        null,
      );
      const read = seam.exec("SELECT i, r, t, b, n FROM v ORDER BY i");
      same(read, [
        { i: 7, r: -0.25, t: "", b: new Uint8Array([0, 1, 255]), n: null },
        { i: 42, r: 1.5, t: "tëxt ☃", b: null, n: null },
      ], "the rows read back");
      check(read[0].b instanceof Uint8Array, "a blob reads back as a Uint8Array");
      same(
        seam.exec("SELECT t FROM v WHERE i = ? AND r > ?", 42, 1),
        [{ t: "tëxt ☃" }],
        "parameters bind in order",
      );
    },
  },
  {
    name: "seam: a transaction commits its writes and returns its function's value",
    run(seam) {
      seam.exec("CREATE TABLE t (v TEXT) STRICT");
      const value = seam.transaction(() => {
        seam.exec("INSERT INTO t (v) VALUES ('a')");
        return { answer: 42 };
      });
      same(value, { answer: 42 }, "the transaction's value");
      same(rows(seam, "SELECT v FROM t"), [{ v: "a" }], "the committed rows");
    },
  },
  {
    name: "seam: a nested transaction that throws rolls back only its own writes",
    run(seam) {
      seam.exec("CREATE TABLE t (v TEXT) STRICT");
      const inner = new RangeError("inner failure");
      seam.transaction(() => {
        seam.exec("INSERT INTO t (v) VALUES ('outer before')");
        const caught = throws(
          () =>
            seam.transaction(() => {
              seam.exec("INSERT INTO t (v) VALUES ('inner')");
              throw inner;
            }),
          "RangeError",
          "the inner transaction",
        );
        check(caught === inner, "the inner transaction rethrows its function's own error");
        seam.exec("INSERT INTO t (v) VALUES ('outer after')");
      });
      same(
        rows(seam, "SELECT v FROM t ORDER BY rowid"),
        [{ v: "outer before" }, { v: "outer after" }],
        "the rows after an inner rollback",
      );
    },
  },
  {
    name: "seam: an outer throw rolls back everything, savepoints that succeeded included",
    run(seam) {
      seam.exec("CREATE TABLE t (v TEXT) STRICT");
      seam.exec("INSERT INTO t (v) VALUES ('before')");
      const outer = new Error("outer failure");
      const caught = throws(
        () =>
          seam.transaction(() => {
            seam.exec("INSERT INTO t (v) VALUES ('outer')");
            seam.transaction(() => {
              seam.exec("INSERT INTO t (v) VALUES ('inner')");
              seam.transaction(() => seam.exec("UPDATE t SET v = 'changed' WHERE v = 'before'"));
            });
            throw outer;
          }),
        "Error",
        "the outer transaction",
      );
      check(caught === outer, "the outer transaction rethrows its function's own error");
      same(rows(seam, "SELECT v FROM t"), [{ v: "before" }], "the rows after an outer rollback");
    },
  },
  {
    name: "seam: savepoints nest three deep, each rolling back alone",
    run(seam) {
      seam.exec("CREATE TABLE t (v TEXT) STRICT");
      seam.transaction(() => {
        seam.exec("INSERT INTO t (v) VALUES ('1')");
        seam.transaction(() => {
          seam.exec("INSERT INTO t (v) VALUES ('2')");
          throws(
            () =>
              seam.transaction(() => {
                seam.exec("INSERT INTO t (v) VALUES ('3')");
                throw new Error("third level");
              }),
            "Error",
            "the third level",
          );
          seam.exec("INSERT INTO t (v) VALUES ('2b')");
        });
        throws(
          () =>
            seam.transaction(() => {
              seam.exec("INSERT INTO t (v) VALUES ('x')");
              seam.transaction(() => seam.exec("INSERT INTO t (v) VALUES ('y')"));
              throw new Error("second level");
            }),
          "Error",
          "the second level",
        );
      });
      same(
        rows(seam, "SELECT v FROM t ORDER BY rowid"),
        [{ v: "1" }, { v: "2" }, { v: "2b" }],
        "the rows after nested rollbacks",
      );
    },
  },
  {
    name: "seam: a failing statement rolls back its whole transaction",
    run(seam) {
      seam.exec("CREATE TABLE t (k TEXT PRIMARY KEY) STRICT");
      seam.exec("INSERT INTO t (k) VALUES ('a')");
      refused(seam, undefined, "a duplicate key", () =>
        seam.transaction(() => {
          seam.exec("INSERT INTO t (k) VALUES ('b')");
          seam.exec("INSERT INTO t (k) VALUES ('a')");
        }));
    },
  },
  {
    name: "seam: a transaction whose function returns a promise is refused and rolled back",
    run(seam) {
      seam.exec("CREATE TABLE t (v TEXT) STRICT");
      refused(seam, "TypeError", "an asynchronous transaction", () =>
        seam.transaction(() => {
          seam.exec("INSERT INTO t (v) VALUES ('a')");
          return Promise.resolve();
        }));
    },
  },
];

const SCHEMA_CASES: ContractCase[] = [
  {
    name: "schema: an empty database is initialized, then recognized",
    run(seam) {
      check(isEmptyDatabase(seam), "a fresh database is empty");
      initializeSchema(seam);
      check(!isEmptyDatabase(seam), "an initialized database is not empty");
      recognizeSchema(seam, WHERE);
      same(
        rows(seam, "SELECT key, value FROM xmd_meta ORDER BY key"),
        [{ key: "format", value: FORMAT }, { key: "schema_version", value: "2" }],
        "the meta rows",
      );
      const tables = seam.exec("SELECT name, sql FROM sqlite_master WHERE type = 'table'")
        .filter((row) => !String(row.name).startsWith("_cf_"))
        .sort((a, b) => String(a.name).localeCompare(String(b.name)));
      same(
        tables,
        TABLES.map((table) => ({ name: table.name, sql: table.sql }))
          .sort((a, b) => a.name.localeCompare(b.name)),
        "the tables created",
      );
    },
  },
  {
    name: "schema: a failed initialization leaves the database empty",
    run(seam) {
      const empty = dump(seam);
      throws(
        () =>
          initializeSchema(seam, () => {
            throw new Error("stamp failed");
          }),
        "Error",
        "an initialization whose stamp fails",
      );
      check(isEmptyDatabase(seam), "the database is still empty");
      same(dump(seam), empty, "the database after a failed initialization");
    },
  },
  {
    name: "schema: a foreign database (no xmd_meta) is refused as a format error, unchanged",
    run(seam) {
      seam.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)");
      seam.exec("INSERT INTO notes (body) VALUES ('keep me')");
      check(!isEmptyDatabase(seam), "a foreign database is not empty, so never initialized");
      const error = refused(
        seam,
        "WorkflowDatabaseFormatError",
        "recognizing a foreign database",
        () => recognizeSchema(seam, WHERE),
      );
      check(error.message.includes(WHERE), "the refusal names the database");
    },
  },
  {
    name: "schema: a foreign table named xmd_meta is refused as a format error, unchanged",
    run(seam) {
      seam.exec("CREATE TABLE xmd_meta (k TEXT, v TEXT)");
      seam.exec("INSERT INTO xmd_meta (k, v) VALUES ('format', 'xmd-run')");
      refused(
        seam,
        "WorkflowDatabaseFormatError",
        "recognizing a foreign xmd_meta",
        () => recognizeSchema(seam, WHERE),
      );
    },
  },
  {
    name: "schema: an xmd_meta of another format is refused as a format error, unchanged",
    run(seam) {
      initializeSchema(seam);
      seam.exec("UPDATE xmd_meta SET value = 'other-tool' WHERE key = 'format'");
      const error = refused(
        seam,
        "WorkflowDatabaseFormatError",
        "recognizing another format",
        () => recognizeSchema(seam, WHERE),
      );
      check(!error.message.includes("other-tool"), "the refusal does not echo the stored format");
    },
  },
  {
    name: "schema: a newer schema version is refused as a version error, unchanged",
    run(seam) {
      initializeSchema(seam);
      seam.exec("UPDATE xmd_meta SET value = '3' WHERE key = 'schema_version'");
      refused(
        seam,
        "WorkflowSchemaVersionError",
        "recognizing schema version 3",
        () => recognizeSchema(seam, WHERE),
      );
    },
  },
  {
    name: "schema: a partial initialization (format row, no schema version) is refused, unchanged",
    run(seam) {
      seam.transaction(() => {
        for (const table of TABLES) seam.exec(table.sql);
        seam.exec("INSERT INTO xmd_meta (key, value) VALUES ('format', ?)", FORMAT);
      });
      refused(
        seam,
        "WorkflowDatabaseCorruptError",
        "recognizing a partial initialization",
        () => recognizeSchema(seam, WHERE),
      );
    },
  },
  {
    name: "schema: an unreadable schema version is refused as corrupt, unchanged",
    run(seam) {
      initializeSchema(seam);
      seam.exec("UPDATE xmd_meta SET value = 'one' WHERE key = 'schema_version'");
      refused(
        seam,
        "WorkflowDatabaseCorruptError",
        "recognizing an unreadable version",
        () => recognizeSchema(seam, WHERE),
      );
    },
  },
  {
    name: "schema: an altered table is refused as corrupt, unchanged",
    run(seam) {
      initializeSchema(seam);
      seam.exec("ALTER TABLE event ADD COLUMN extra TEXT");
      refused(
        seam,
        "WorkflowDatabaseCorruptError",
        "recognizing an altered table",
        () => recognizeSchema(seam, WHERE),
      );
    },
  },
  {
    name: "schema: a missing table is refused as corrupt, unchanged",
    run(seam) {
      initializeSchema(seam);
      seam.exec("DROP TABLE answer");
      refused(
        seam,
        "WorkflowDatabaseCorruptError",
        "recognizing a database without its answer table",
        () => recognizeSchema(seam, WHERE),
      );
    },
  },
];

const STORE_CASES: ContractCase[] = [
  {
    name: "store: create records the run, its retained sources and its first execution",
    run(seam) {
      const store = initialized(seam);
      check(!store.hasRun(), "an initialized database holds no run yet");
      same(store.create(newRun()), 1, "the first execution");
      check(store.hasRun(), "the run exists");
      const record = store.record();
      same(record, {
        id: "contract-run",
        document: "release.md",
        target: null,
        definitionHash: "a".repeat(64),
        propsHash: "b".repeat(64),
        // The root of an empty Workspace (root format 1).
        root: "56177ba82b132c561284403f08857796de5af224c36f16e9f410781f41504ae8",
        status: "running",
        stopReason: null,
        createdAt: record.createdAt,
        updatedAt: record.createdAt,
        eventCount: 0,
      }, "the record");
      same(store.props(), { version: "1.2.3", draft: false }, "the props");
      same(store.sources(), [
        { label: "release.md", text: ROOT_TEXT, root: true },
        { label: "components/greet.md", text: COMPONENT_TEXT, root: false },
      ], "the retained sources, root first");
      same(store.executions(), [
        { seq: 1, kind: "start", startedAt: record.createdAt, endedAt: null, outcome: null },
      ], "the executions");
      same(store.events(), [], "the journal");
    },
  },
  {
    name: "store: a second create is refused, unchanged",
    run(seam) {
      const store = running(seam);
      refused(seam, undefined, "creating the run again", () => store.create(newRun()));
    },
  },
  {
    name: "store: a retained source that no longer matches its hash is refused as corrupt",
    run(seam) {
      const store = running(seam);
      seam.exec("UPDATE source SET text = 'tampered text' WHERE root = 1");
      const error = refused(
        seam,
        "WorkflowDatabaseCorruptError",
        "reading a tampered source",
        () => store.sources(),
      );
      check(!error.message.includes("tampered text"), "the refusal does not echo the source");
    },
  },
  {
    name: "store: append commits events in order and events() reads them back",
    run(seam) {
      const store = running(seam);
      const createdAt = store.record().updatedAt;
      same(store.append(1, effect(1)), 1, "the first event id");
      same(store.append(1, effect(2)), 2, "the second event id");
      same(store.append(1, CLOSE), 3, "the third event id");
      const events = store.events();
      same(events.map((e) => e.id), [1, 2, 3], "the event ids");
      same(events.map((e) => e.event), [effect(1), effect(2), CLOSE], "the events");
      check(events.every((e) => e.at > createdAt), "each event has its commit time");
      const record = store.record();
      same(record.eventCount, 3, "the event count");
      check(record.updatedAt >= events[2].at, "the run's update time follows its last event");
      same(
        rows(seam, "SELECT execution FROM event"),
        [{ execution: 1 }, { execution: 1 }, { execution: 1 }],
        "each event names its execution",
      );
    },
  },
  {
    name:
      "JRN-70: an append writes its event only; the current root and update time follow the last event",
    run(seam) {
      const store = running(seam);
      const created = rows(seam, "SELECT * FROM run");
      const rootBefore = store.record().root;
      store.append(1, effect(1));
      const moved = "c".repeat(64);
      store.append(1, effect(2), moved);
      const last = store.append(1, effect(3));
      same(rows(seam, "SELECT * FROM run"), created, "the run row after three appends");
      const events = store.events();
      same(events.map((e) => e.root), [rootBefore, moved, moved], "each event's root");
      const record = store.record();
      same(record.root, moved, "the current root (the last event's)");
      same(record.eventCount, last, "the event count");
      same(record.updatedAt, events[2].at, "the update time (the last event's)");
      // A change of state writes the run row, and a later time there wins.
      store.settle(1, "suspended", { kind: "journal", eventId: last });
      check(store.record().updatedAt > events[2].at, "the settlement's time follows");
      same(store.record().root, moved, "the current root after settling");
    },
  },
  {
    name:
      "JRN-71: a version-1 database is upgraded in one transaction of its version row, and reads the same run",
    run(seam) {
      const store = suspended(seam);
      // Version 1 wrote every append's root and time into the run row as well.
      const [last] = seam.exec("SELECT root FROM event ORDER BY seq DESC LIMIT 1");
      seam.exec("UPDATE run SET root = ?", last.root);
      seam.exec("UPDATE xmd_meta SET value = '1' WHERE key = 'schema_version'");
      recognizeSchema(seam, WHERE);
      const record = store.record();
      const before = dump(seam);
      throws(
        () =>
          upgradeSchema(seam, () => {
            throw new Error("stamp failed");
          }),
        "Error",
        "an upgrade whose stamp fails",
      );
      same(dump(seam), before, "the database after a failed upgrade");
      upgradeSchema(seam);
      same(
        rows(seam, "SELECT value FROM xmd_meta WHERE key = 'schema_version'"),
        [{ value: "2" }],
        "the version row after the upgrade",
      );
      seam.exec("UPDATE xmd_meta SET value = '1' WHERE key = 'schema_version'");
      same(dump(seam), before, "everything but the version row after the upgrade");
      upgradeSchema(seam);
      recognizeSchema(seam, WHERE);
      same(store.record(), record, "the run record after the upgrade");
      const upgraded = dump(seam);
      upgradeSchema(seam);
      same(dump(seam), upgraded, "a version-2 database after another upgrade");
    },
  },
  {
    name: "store: append under another execution is refused (ExecutorLostError), unchanged",
    run(seam) {
      const store = running(seam);
      store.append(1, effect(1));
      refused(
        seam,
        "ExecutorLostError",
        "appending as execution 2",
        () => store.append(2, effect(2)),
      );
    },
  },
  {
    name: "store: append to a run that is not running is refused (ExecutorLostError), unchanged",
    run(seam) {
      const store = running(seam);
      store.settle(1, "interrupted", { kind: "host", code: "interrupted" });
      refused(
        seam,
        "ExecutorLostError",
        "appending to an interrupted run",
        () => store.append(1, effect(1)),
      );
    },
  },
  {
    name: "store: settle ends the execution with its status and stop reason",
    run(seam) {
      const store = running(seam);
      store.append(1, effect(1));
      store.settle(1, "interrupted", { kind: "host", code: "interrupted" });
      const record = store.record();
      same(record.status, "interrupted", "the status");
      same(record.stopReason, { kind: "host", code: "interrupted" }, "the stop reason");
      const [execution] = store.executions();
      same(execution.outcome, "interrupted", "the execution's outcome");
      check(execution.endedAt !== null, "the execution has ended");
      refused(
        seam,
        "ExecutorLostError",
        "settling the ended execution again",
        () => store.settle(1, "completed", null),
      );
    },
  },
  {
    name: "store: settle under another execution is refused (ExecutorLostError), unchanged",
    run(seam) {
      const store = running(seam);
      refused(
        seam,
        "ExecutorLostError",
        "settling as execution 2",
        () => store.settle(2, "completed", null),
      );
    },
  },
  {
    name: "store: beginExecution continues a suspended run and fences out the old execution",
    run(seam) {
      const store = suspended(seam);
      same(store.beginExecution(["suspended", "interrupted"]), 2, "the new execution");
      const record = store.record();
      same([record.status, record.stopReason], ["running", null], "the record");
      same(
        store.executions().map((e) => [e.seq, e.kind, e.outcome]),
        [[1, "start", "suspended"], [2, "resume", null]],
        "the executions",
      );
      refused(
        seam,
        "ExecutorLostError",
        "appending as the old execution",
        () => store.append(1, effect(9)),
      );
      same(store.append(2, effect(3)), 3, "the new execution appends");
    },
  },
  {
    name: "store: beginExecution refuses a status it does not allow (RunStateError), unchanged",
    run(seam) {
      const store = running(seam);
      refused(
        seam,
        "RunStateError",
        "beginning over a running run",
        () => store.beginExecution(["suspended", "interrupted"]),
      );
      store.append(1, CLOSE);
      store.settle(1, "completed", null);
      refused(
        seam,
        "RunStateError",
        "beginning over a completed run",
        () => store.beginExecution(["suspended", "interrupted"]),
      );
    },
  },
  {
    name: "store: recoverStale closes a running execution as interrupted (crashed)",
    run(seam) {
      const store = running(seam);
      store.append(1, effect(1));
      check(store.recoverStale(), "a running run is recovered");
      const record = store.record();
      same([record.status, record.stopReason], ["interrupted", {
        kind: "host",
        code: "crashed",
      }], "the record");
      const [execution] = store.executions();
      same(execution.outcome, "interrupted", "the stale execution's outcome");
      check(execution.endedAt !== null, "the stale execution has ended");
      refused(
        seam,
        "ExecutorLostError",
        "appending as the stale executor",
        () => store.append(1, effect(2)),
      );
    },
  },
  {
    name: "store: recoverStale leaves a run that is not running unchanged",
    run(seam) {
      const store = suspended(seam);
      const before = dump(seam);
      check(!store.recoverStale(), "a suspended run is not recovered");
      same(dump(seam), before, "the database");
    },
  },
  {
    name: "store: storeAnswer stores one pending answer and changes nothing else",
    run(seam) {
      const store = suspended(seam);
      same(store.pendingSuspension(), {
        suspensionId: SUSPENSION_ID,
        question: "Ship it?",
        schema: { type: "boolean" },
        answered: false,
      }, "the pending suspension");
      const record = store.record();
      const events = dump(seam).split("\n").filter((line) => line.startsWith("event:"));
      store.storeAnswer(SUSPENSION_ID, { approved: true, by: "release-manager" });
      same(
        store.answer(SUSPENSION_ID),
        { approved: true, by: "release-manager" },
        "the stored answer",
      );
      same(store.pendingSuspension()?.answered, true, "the suspension is answered");
      same(store.record(), record, "the record");
      same(
        dump(seam).split("\n").filter((line) => line.startsWith("event:")),
        events,
        "the journal",
      );
    },
  },
  {
    name: "store: storeAnswer refuses another suspension's id (RunStateError), unchanged",
    run(seam) {
      const store = suspended(seam);
      refused(
        seam,
        "RunStateError",
        "answering another suspension",
        () => store.storeAnswer("root:7", true),
      );
    },
  },
  {
    name: "store: storeAnswer refuses a second answer (RunStateError), unchanged",
    run(seam) {
      const store = suspended(seam);
      store.storeAnswer(SUSPENSION_ID, true);
      const error = refused(
        seam,
        "RunStateError",
        "answering twice",
        () => store.storeAnswer(SUSPENSION_ID, "a different secret-looking answer"),
      );
      check(!error.message.includes("secret-looking"), "the refusal does not echo the answer");
      same(store.answer(SUSPENSION_ID), true, "the first answer");
    },
  },
  {
    name: "store: storeAnswer refuses a run that is not suspended (RunStateError), unchanged",
    run(seam) {
      const store = running(seam);
      store.append(1, REQUEST);
      refused(
        seam,
        "RunStateError",
        "answering a running run",
        () => store.storeAnswer(SUSPENSION_ID, true),
      );
      store.append(1, CLOSE);
      store.settle(1, "completed", null);
      refused(
        seam,
        "RunStateError",
        "answering a completed run",
        () => store.storeAnswer(SUSPENSION_ID, true),
      );
    },
  },
  {
    name: "store: a suspension_answer append consumes the pending answer in the same transaction",
    run(seam) {
      const store = suspended(seam);
      store.storeAnswer(SUSPENSION_ID, true);
      const execution = store.beginExecution(["suspended", "interrupted"]);
      const outer = new Error("a later write in the caller's transaction failed");
      refused(
        seam,
        "Error",
        "an answer append whose transaction fails later",
        () =>
          seam.transaction(() => {
            store.append(execution, ANSWER);
            throw outer;
          }),
      );
      same(store.answer(SUSPENSION_ID), true, "the answer, still pending after the rollback");
      same(store.append(execution, ANSWER), 3, "the answer event id");
      same(store.answer(SUSPENSION_ID), undefined, "the consumed answer");
      same(rows(seam, "SELECT count(*) AS n FROM answer"), [{ n: 0 }], "the answer table");
      same(store.events().at(-1)?.event, ANSWER, "the last event");
    },
  },
  {
    name: "store: a suspension_answer append with no pending answer rolls back entirely",
    run(seam) {
      const store = suspended(seam);
      const execution = store.beginExecution(["suspended", "interrupted"]);
      refused(
        seam,
        "RunStateError",
        "appending an answer nobody gave",
        () => store.append(execution, ANSWER),
      );
      same(store.record().eventCount, 2, "the event count");
    },
  },
  {
    name: "store: cancel ends a suspended run and drops its pending answer",
    run(seam) {
      const store = suspended(seam);
      store.storeAnswer(SUSPENSION_ID, false);
      store.cancel();
      const record = store.record();
      same([record.status, record.stopReason], ["cancelled", {
        kind: "host",
        code: "cancelled",
      }], "the record");
      same(store.answer(SUSPENSION_ID), undefined, "the dropped answer");
      refused(seam, "RunStateError", "cancelling twice", () => store.cancel());
    },
  },
  {
    name: "store: a run row with an unknown status is refused as corrupt, unchanged",
    run(seam) {
      const store = running(seam);
      seam.exec("UPDATE run SET status = 'bogus'");
      const error = refused(
        seam,
        "WorkflowDatabaseCorruptError",
        "reading the record",
        () => store.record(),
      );
      check(!error.message.includes("bogus"), "the refusal does not echo the stored status");
      refused(
        seam,
        "WorkflowDatabaseCorruptError",
        "appending to it",
        () => store.append(1, effect(1)),
      );
      refused(seam, "WorkflowDatabaseCorruptError", "recovering it", () => store.recoverStale());
    },
  },
  {
    name: "store: an event body that is not a journal event is refused as corrupt",
    run(seam) {
      const store = running(seam);
      store.append(1, effect(1));
      seam.exec('UPDATE event SET body = \'{"type": "yield", oops\' WHERE seq = 1');
      const error = refused(
        seam,
        "WorkflowDatabaseCorruptError",
        "reading a non-JSON event",
        () => store.events(),
      );
      check(!error.message.includes("oops"), "the refusal does not echo the stored body");
      seam.exec(`UPDATE event SET body = ? WHERE seq = 1`, JSON.stringify({ type: "log" }));
      refused(
        seam,
        "WorkflowDatabaseCorruptError",
        "reading a JSON non-event",
        () => store.events(),
      );
    },
  },
];

/** Every case of the storage engine's contract, in a stable order with unique names. */

const text = (value: string) => new TextEncoder().encode(value);
const untext = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

function workspace(seam: SqlSeam): Workspace {
  initializeSchema(seam);
  return new Workspace(seam);
}

const WORKSPACE_CASES: ContractCase[] = [
  {
    name: "workspace: files, directories, symlinks and hard links round-trip",
    run(seam) {
      const ws = workspace(seam);
      seam.transaction(() => {
        ws.mkdir("/release/notes", { recursive: true });
        ws.writeFile("/release/VERSION", text("1.4.0"));
        ws.writeFile("/release/notes/a.md", text("# A\n"), { mode: 0o600 });
        ws.symlink("VERSION", "/release/current");
        ws.link("/release/VERSION", "/release/again");
      });
      same(untext(ws.readFile("/release/current")), "1.4.0", "read through a symlink");
      same(ws.readlink("/release/current"), "VERSION", "the symlink target, verbatim");
      same(
        ws.readdir("/release"),
        ["VERSION", "again", "current", "notes"],
        "entries by UTF-8 bytes",
      );
      same(ws.stat("/release/VERSION").nlink, 2, "hard links");
      same(ws.stat("/release/notes/a.md").mode, 0o600, "the mode");
      same(untext(ws.readFile("/../../release/notes/../VERSION")), "1.4.0", ".. stops at /");
    },
  },
  {
    name: "workspace: a refusal carries its POSIX code and, in a savepoint, changes nothing",
    run(seam) {
      const ws = workspace(seam);
      seam.transaction(() => ws.mkdir("/d"));
      const root = seam.transaction(() => publishRoot(seam));
      for (
        const [action, code] of [
          [() => ws.readFile("/missing"), "ENOENT"],
          [() => ws.readFile("/d"), "EISDIR"],
          [() => ws.mkdir("/d"), "EEXIST"],
          [() => ws.writeFile("/d/x/y", text("")), "ENOENT"],
        ] as [() => unknown, string][]
      ) {
        const error = throws(
          () => seam.transaction(() => seam.transaction(action)),
          "FileSystemError",
          code,
        );
        same((error as Error & { posix?: string }).posix, code, "the POSIX code");
      }
      throws(
        () =>
          seam.transaction(() =>
            seam.transaction(() => {
              ws.writeFile("/d/new", text("n"));
              ws.readFile("/missing");
            })
          ),
        "FileSystemError",
        "a refusal after a write",
      );
      check(!ws.exists("/d/new"), "the savepoint rolled the write back");
      same(seam.transaction(() => publishRoot(seam)), root, "the root is unchanged");
    },
  },
  {
    name: "workspace: root format 1 ids match the specification's vectors",
    run(seam) {
      const ws = workspace(seam);
      same(
        seam.transaction(() => publishRoot(seam)),
        "56177ba82b132c561284403f08857796de5af224c36f16e9f410781f41504ae8",
        "the empty root",
      );
      seam.transaction(() => {
        ws.writeFile("/hello.txt", text("hi\n"));
        ws.symlink("hello.txt", "/link");
      });
      same(
        seam.transaction(() => publishRoot(seam)),
        objectHash(treeObject([
          {
            name: "hello.txt",
            kind: "file",
            mode: 0o644,
            ref: objectHash(fileObject(3, [sha256Hex("hi\n")])),
          },
          { name: "link", kind: "symlink", mode: 0o777, ref: "hello.txt" },
        ])),
        "a root with a file and a symlink",
      );
    },
  },
  {
    name: "workspace: files over 1 MiB are chunked, shared chunks stored once, and verified",
    run(seam) {
      const ws = workspace(seam);
      const big = new Uint8Array(2 * 1024 * 1024 + 17).map((_, i) => i % 253);
      seam.transaction(() => {
        ws.writeFile("/big", big);
        ws.writeFile("/copy", big);
      });
      same(seam.exec("SELECT count(*) AS n FROM ws_chunk")[0].n, 3, "three distinct chunks");
      check(stable(ws.readFile("/big")) === stable(big), "the bytes read back");
      const root = seam.transaction(() => publishRoot(seam));
      verifyRoot(seam, root, WHERE);
      const chunk = String(seam.exec("SELECT hash FROM ws_chunk LIMIT 1")[0].hash);
      seam.exec("UPDATE ws_chunk SET data = ? WHERE hash = ?", text("flipped"), chunk);
      throws(
        () => verifyRoot(seam, root, WHERE),
        "WorkflowDatabaseCorruptError",
        "a flipped chunk",
      );
    },
  },
  {
    name: "workspace: publication rehashes only the directories on the changed path",
    run(seam) {
      const ws = workspace(seam);
      seam.transaction(() => {
        for (let d = 0; d < 5; d++) {
          ws.mkdir(`/${d}`);
          for (let f = 0; f < 5; f++) ws.writeFile(`/${d}/${f}`, text(`${d}${f}`));
        }
      });
      seam.transaction(() => publishRoot(seam));
      seam.transaction(() => ws.writeFile("/3/4", text("changed")));
      same(
        seam.exec("SELECT count(*) AS n FROM ws_inode WHERE hash IS NULL")[0].n,
        3,
        "the file, its directory and the root are dirty",
      );
      const incremental = seam.transaction(() => publishRoot(seam));
      seam.transaction(() => forgetHashes(seam));
      same(seam.transaction(() => publishRoot(seam)), incremental, "a full rehash agrees");
    },
  },
  {
    name:
      "workspace: after a published commit a changed directory is stored as a delta, read whole",
    run(seam) {
      const ws = workspace(seam);
      seam.transaction(() => {
        ws.mkdir("/d");
        for (let f = 0; f < 40; f++) ws.writeFile(`/d/${f}`, text(`${f}`));
        publishRoot(seam);
      });
      publicationCommitted(seam);
      const root = seam.transaction(() => {
        ws.writeFile("/d/7", text("changed"));
        return publishRoot(seam);
      });
      publicationCommitted(seam);
      check(
        Number(seam.exec("SELECT count(*) AS n FROM ws_object WHERE base IS NOT NULL")[0].n) > 0,
        "the changed directory's tree is a delta",
      );
      verifyRoot(seam, root, WHERE);
      same(liveRootOf(seam, WHERE), root, "the live tables describe the published root");
      seam.transaction(() => forgetHashes(seam));
      same(seam.transaction(() => publishRoot(seam)), root, "a full rehash agrees");
    },
  },
];

/**
 * The live Workspace as a user of it sees it, inode numbers aside: one line per
 * path (the root first) with every column of its inode and the other names of
 * that inode, sorted. Walked with a stack, as deep as the tables go.
 */
function liveListing(seam: SqlSeam): string[] {
  const named: { path: string; row: SqlRow }[] = [];
  const stack: [number, string][] = [[ROOT_INO, ""]];
  while (stack.length > 0) {
    const [dir, prefix] = stack.pop()!;
    for (
      const row of seam.exec(
        "SELECT d.name, i.* FROM ws_dirent d JOIN ws_inode i ON i.ino = d.ino WHERE d.parent = ?",
        dir,
      )
    ) {
      const path = prefix + String(row.name);
      named.push({ path, row });
      if (row.kind === "dir") stack.push([Number(row.ino), `${path}/`]);
    }
  }
  const names = new Map<number, string[]>();
  for (const { path, row } of named) {
    names.set(Number(row.ino), [...names.get(Number(row.ino)) ?? [], path]);
  }
  const line = (path: string, row: SqlRow) => {
    const { ino, name: _name, ...columns } = row;
    return stable({ path, ...columns, names: (names.get(Number(ino)) ?? []).sort() });
  };
  const root = seam.exec("SELECT * FROM ws_inode WHERE ino = ?", ROOT_INO)[0];
  return [line("/", root), ...named.map(({ path, row }) => line(path, row)).sort()];
}

function count(seam: SqlSeam, table: string): number {
  return Number(seam.exec(`SELECT count(*) AS n FROM ${table}`)[0].n);
}

/** Stores a hash-consistent object with exactly `text` (a forged or non-canonical one). */
function forge(seam: SqlSeam, text: string): string {
  const hash = objectHash(text);
  seam.exec("INSERT OR IGNORE INTO ws_object (hash, body) VALUES (?, ?)", hash, text);
  return hash;
}

/**
 * A Workspace holding every kind of entry materialization rebuilds, published
 * as `root`, with its hard-link groups; the live tables are then moved on to
 * another state, so materializing `root` has to rebuild all of them.
 */
function materializable(seam: SqlSeam) {
  const ws = workspace(seam);
  const big = new Uint8Array(2 * 1024 * 1024 + 5).map((_, i) => (i * 7) % 251);
  seam.transaction(() => {
    ws.mkdir("/src/lib/deep/er", { recursive: true });
    ws.mkdir("/bin", { mode: 0o700 });
    ws.mkdir("/empty-dir", { mode: 0o750 });
    ws.writeFile("/src/lib/big.bin", big);
    ws.writeFile("/src/lib/deep/er/leaf.txt", text("leaf\n"), { mode: 0o600 });
    ws.writeFile("/empty", new Uint8Array(0));
    ws.writeFile("/src/empty-too", new Uint8Array(0), { mode: 0o400 });
    ws.writeFile("/bin/run", text("#!/bin/sh\necho hi\n"), { mode: 0o755 });
    ws.link("/bin/run", "/run");
    ws.link("/bin/run", "/src/lib/deep/run");
    ws.symlink("/src/lib/big.bin", "/abs");
    ws.symlink("../big.bin", "/src/lib/deep/rel");
    ws.symlink("no/such/file", "/dangling");
    ws.link("/dangling", "/src/dangling-again");
    ws.writeFile("/twin-a", text("same"));
    ws.writeFile("/twin-b", text("same"));
  });
  const root = seam.transaction(() => publishRoot(seam));
  const listing = liveListing(seam);
  const links = [["bin/run", "run", "src/lib/deep/run"], ["src/dangling-again", "dangling"]];
  seam.transaction(() => {
    ws.unlink("/run");
    ws.rmdir("/empty-dir");
    ws.writeFile("/src/lib/deep/er/leaf.txt", text("moved on"));
    ws.writeFile("/elsewhere", text("not in the root"));
    publishRoot(seam);
  });
  return { ws, big, root, listing, links };
}

const MATERIALIZE_CASES: ContractCase[] = [
  {
    name:
      "materialize (WS-49, WS-50): a root's live tables are rebuilt inode for inode: nested dirs, chunks, empty files, symlinks, modes, hard links",
    run(seam) {
      const { ws, big, root, listing, links } = materializable(seam);
      check(liveRootOf(seam, WHERE) !== root, "the live Workspace has moved on");
      const [objects, chunks] = [count(seam, "ws_object"), count(seam, "ws_chunk")];
      materializeRoot(seam, root, links, WHERE);
      same(
        liveListing(seam),
        listing,
        "kinds, modes, sizes, targets, chunks, nlink, hashes, links",
      );
      same(liveRootOf(seam, WHERE), root, "the live tables describe the root");
      same(
        seam.exec("SELECT count(*) AS n FROM ws_inode WHERE hash IS NULL AND kind != 'symlink'")[0]
          .n,
        0,
        "every file and directory caches its hash: nothing is dirty",
      );
      same(seam.transaction(() => publishRoot(seam)), root, "publishing again gives the root");
      same(
        [count(seam, "ws_object"), count(seam, "ws_chunk")],
        [objects, chunks],
        "nothing stored, no chunk copied",
      );
      check(stable(ws.readFile("/abs")) === stable(big), "three chunks read back through /abs");
      same(untext(ws.readFile("/src/lib/deep/run")), "#!/bin/sh\necho hi\n", "a hard link");
      same(ws.readFile("/src/empty-too").length, 0, "an empty file");
      same(ws.readlink("/src/lib/deep/rel"), "../big.bin", "a relative target, verbatim");
      same(ws.readlink("/dangling"), "no/such/file", "a dangling target, verbatim");
      check(!ws.exists("/dangling"), "it still dangles");
      same(ws.lstat("/run").ino, ws.lstat("/bin/run").ino, "linked names share an inode");
      same(ws.lstat("/dangling").nlink, 2, "a hard-linked symlink");
      check(ws.lstat("/twin-a").ino !== ws.lstat("/twin-b").ino, "equal files stay apart");
      same(ws.stat("/empty-dir").mode, 0o750, "an empty directory and its mode");
      same(ws.readdir("/src/lib/deep/er"), ["leaf.txt"], "a nested directory");
      same(untext(ws.readFile("/src/lib/deep/er/leaf.txt")), "leaf\n", "the root's bytes");
      check(!ws.exists("/elsewhere"), "what the root lacks is gone");
      seam.transaction(() => ws.writeFile("/bin/run", text("changed")));
      same(untext(ws.readFile("/run")), "changed", "a write reaches every name of the inode");
    },
  },
  {
    name:
      "materialize (WS-49): the next publication is incremental: a change rehashes only its path, as deltas",
    run(seam) {
      const ws = workspace(seam);
      seam.transaction(() => {
        for (let d = 0; d < 10; d++) {
          ws.mkdir(`/${d}`);
          for (let f = 0; f < 10; f++) ws.writeFile(`/${d}/${f}`, text(`${d}${f}`));
        }
      });
      const root = seam.transaction(() => publishRoot(seam));
      seam.transaction(() => ws.writeFile("/5/5", text("elsewhere")));
      seam.transaction(() => publishRoot(seam));
      materializeRoot(seam, root, [], WHERE);
      publicationCommitted(seam);
      const [objects, deltas] = [
        count(seam, "ws_object"),
        count(seam, "ws_object WHERE base IS NOT NULL"),
      ];
      seam.transaction(() => ws.writeFile("/3/4", text("changed")));
      same(
        seam.exec("SELECT count(*) AS n FROM ws_inode WHERE hash IS NULL")[0].n,
        3,
        "the file, its directory and the root are dirty, nothing else",
      );
      const next = seam.transaction(() => publishRoot(seam));
      same(count(seam, "ws_object"), objects + 3, "one file object and two trees stored");
      check(
        count(seam, "ws_object WHERE base IS NOT NULL") > deltas,
        "the changed directory is a delta against its materialized tree",
      );
      verifyRoot(seam, next, WHERE);
      same(liveRootOf(seam, WHERE), next, "the live tables describe the new root");
      seam.transaction(() => forgetHashes(seam));
      same(seam.transaction(() => publishRoot(seam)), next, "a full rehash agrees");
    },
  },
  {
    name:
      "materialize (WS-49): what publication remembered of the replaced tables is forgotten, even within one transaction",
    run(seam) {
      const ws = workspace(seam);
      seam.transaction(() => {
        ws.mkdir("/d");
        for (const name of ["a", "b"]) ws.writeFile(`/d/${name}`, text(name));
      });
      const other = seam.transaction(() => publishRoot(seam));
      seam.transaction(() => {
        for (let f = 0; f < 40; f++) ws.writeFile(`/d/${f}`, text(`${f}`));
        publishRoot(seam);
      });
      publicationCommitted(seam);
      const root = seam.transaction(() => {
        // Remembered: /d's inode changed name "7" against its 42-entry tree.
        ws.writeFile("/d/7", text("changed"));
        materializeRoot(seam, other, [], WHERE);
        // The same inode number now holds the two-entry /d of the other root.
        ws.writeFile("/d/a", text("again"));
        return publishRoot(seam);
      });
      publicationCommitted(seam);
      same(ws.readdir("/d"), ["a", "b"], "the other root's directory");
      same(liveRootOf(seam, WHERE), root, "the published root describes the live tables");
      seam.transaction(() => forgetHashes(seam));
      same(seam.transaction(() => publishRoot(seam)), root, "a full rehash agrees");
    },
  },
  {
    name:
      "materialize (WS-51): a root whose objects or chunks are missing or damaged is refused (WorkflowDatabaseCorruptError), unchanged",
    run(seam) {
      const { root, links } = materializable(seam);
      /** Refused, unchanged, and for the reason `why` names (so not by another check). */
      const attempt = (what: string, why: string, at = root, groups = at === root ? links : []) => {
        const error = refused(seam, "WorkflowDatabaseCorruptError", what, () => {
          materializeRoot(seam, at, groups, WHERE);
        });
        check(error.message.includes(why), `${what}: refused for another reason: ${error.message}`);
        return error;
      };
      /** Damages one row for the length of `fn`, then puts it back. */
      const damaging = (
        table: string,
        hash: string,
        column: string,
        value: SqlValue | undefined,
        fn: () => void,
      ) => {
        const row = seam.exec(`SELECT * FROM ${table} WHERE hash = ?`, hash)[0];
        check(row !== undefined, `${table} holds ${hash.slice(0, 12)}`);
        if (value === undefined) seam.exec(`DELETE FROM ${table} WHERE hash = ?`, hash);
        else seam.exec(`UPDATE ${table} SET ${column} = ? WHERE hash = ?`, value, hash);
        fn();
        seam.exec(`DELETE FROM ${table} WHERE hash = ?`, hash);
        const columns = Object.keys(row);
        seam.exec(
          `INSERT INTO ${table} (${columns.join(", ")}) VALUES (${
            columns.map(() => "?").join(", ")
          })`,
          ...columns.map((column) => row[column]),
        );
      };
      const leaf = objectHash(fileObject(5, [sha256Hex("leaf\n")]));
      const bigChunk = String(
        seam.exec("SELECT hash FROM ws_chunk WHERE length(data) = 1048576 LIMIT 1")[0].hash,
      );
      const deepTree = String(
        seam.exec(
          "SELECT hash FROM ws_object WHERE body LIKE ? AND base IS NULL LIMIT 1",
          '{"entries":[["leaf.txt"%',
        )[0].hash,
      );

      const error = attempt("a missing root", "0".repeat(12) + " is missing", "0".repeat(64));
      check(error.message.includes("000000000000"), "the error names the root");
      damaging(
        "ws_object",
        leaf,
        "body",
        undefined,
        () => attempt("a missing file object", `${leaf.slice(0, 12)} is missing`),
      );
      damaging(
        "ws_object",
        deepTree,
        "body",
        '{"entries":[],"format":1}',
        () => attempt("a tree object that does not match its hash", "does not match its hash"),
      );
      damaging(
        "ws_chunk",
        bigChunk,
        "data",
        undefined,
        () => attempt("a missing chunk", `chunk ${bigChunk.slice(0, 12)} is missing`),
      );
      damaging(
        "ws_chunk",
        bigChunk,
        "data",
        new Uint8Array(1048576).fill(1),
        () => attempt("a flipped chunk of the right length", "does not match its hash"),
      );
      damaging(
        "ws_chunk",
        bigChunk,
        "data",
        text("short"),
        () => attempt("a truncated chunk", "does not match its hash"),
      );
      attempt("a non-canonical tree", "is malformed", forge(seam, '{"format":1,"entries":[]}'));
      attempt("a tree with whitespace", "is malformed", forge(seam, '{"entries": [],"format":1}'));
      const oversized = forge(seam, fileObject(6, [sha256Hex("leaf\n")]));
      attempt(
        "a file whose chunks do not add up",
        "do not add up to its size",
        forge(seam, treeObject([{ name: "f", kind: "file", mode: 0o644, ref: oversized }])),
      );
      attempt(
        "a symlink target with NUL",
        "holds a NUL byte",
        forge(seam, treeObject([{ name: "l", kind: "symlink", mode: 0o777, ref: "a\0b" }])),
      );
      for (
        const [what, why, groups] of [
          ["a group of one", "malformed", [["run"]]],
          ["a path twice", "malformed", [["run", "bin/run"], ["run", "src/lib/deep/run"]]],
          ["an absolute path", "malformed", [["/run", "bin/run"]]],
          ["a path with ..", "malformed", [["src/../run", "bin/run"]]],
          ["a path the root lacks", "a path it lacks", [["run", "bin/run", "nope"]]],
          ["a directory", "names a directory", [["bin", "src"]]],
          ["entries that differ", "entries that differ", [["twin-a", "run"]]],
        ] as [string, string, string[][]][]
      ) {
        attempt(`hard-link groups with ${what}`, why, root, groups);
      }
      materializeRoot(seam, root, links, WHERE);
      same(liveRootOf(seam, WHERE), root, "the undamaged root still materializes");
    },
  },
];

export const RUN_STORE_CONTRACT: readonly ContractCase[] = [
  ...SEAM_CASES,
  ...SCHEMA_CASES,
  ...STORE_CASES,
  ...WORKSPACE_CASES,
  ...MATERIALIZE_CASES,
];
