/**
 * Schema version 2 of a run database, identical for every provider.
 *
 * Version 2 has version 1's tables; what differs is what an append writes:
 * in version 1 every append rewrote the run row (its `root` and
 * `updated_at`), in version 2 it writes only its event, and the run's current
 * root and update time are derived from its last event (`RunStore.record`).
 * A version-1 database always holds a run row whose root is its last event's,
 * so it reads the same either way; a writer upgrades it before its first
 * write (`upgradeSchema`), and a version-1 xmd then refuses it as newer
 * rather than read a run row that no longer moves.
 *
 * Invariants:
 * - Tables are STRICT; the version row is written last, in the same
 *   transaction as everything else, so a database is either empty, complete,
 *   or recognizably partial. An upgrade rewrites only the version rows, in
 *   one transaction.
 * - A database is recognized before it is trusted: a foreign or partial one
 *   is refused with a typed error and is not written to.
 *
 * @module
 */
import {
  WorkflowDatabaseCorruptError,
  WorkflowDatabaseFormatError,
  WorkflowSchemaVersionError,
} from "../contracts/workflow-errors.ts";
import type { SqlSeam } from "../sql/sql-seam.ts";
import { Workspace } from "../workspace/workspace.ts";
import { WORKSPACE_INDEXES, WORKSPACE_TABLES } from "../workspace/workspace-tables.ts";

/** The schema version this code reads and writes. */
export const SCHEMA_VERSION = 2;

/** The value of the `format` meta row. */
export const FORMAT = "xmd-run";

/** Table definitions, in creation order; recognition compares them to `sqlite_master`. */
export const TABLES: readonly { name: string; sql: string }[] = [
  {
    name: "xmd_meta",
    sql: "CREATE TABLE xmd_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT",
  },
  {
    name: "run",
    sql: "CREATE TABLE run (singleton INTEGER PRIMARY KEY CHECK (singleton = 1), " +
      "id TEXT NOT NULL, document TEXT NOT NULL, target TEXT, definition_hash TEXT NOT NULL, " +
      "props_hash TEXT NOT NULL, status TEXT NOT NULL, stop_reason TEXT, " +
      "execution INTEGER NOT NULL, root TEXT NOT NULL, created_at INTEGER NOT NULL, " +
      "updated_at INTEGER NOT NULL) STRICT",
  },
  {
    // Apart from the run row: SQLite reads and compares a whole row, overflow pages included, to
    // update it, and the run row is updated at each change of the run's state (at every append
    // in version 1). Props can be megabytes (a list a document iterates over), so in the row
    // they would make each such write cost as much as reading them (WF-150).
    name: "props",
    sql: "CREATE TABLE props (singleton INTEGER PRIMARY KEY CHECK (singleton = 1), " +
      "value TEXT NOT NULL) STRICT",
  },
  {
    name: "source",
    sql: "CREATE TABLE source (label TEXT PRIMARY KEY, sha256 TEXT NOT NULL, text TEXT NOT NULL, " +
      "root INTEGER NOT NULL) STRICT",
  },
  {
    name: "execution",
    sql: "CREATE TABLE execution (seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, " +
      "started_at INTEGER NOT NULL, ended_at INTEGER, outcome TEXT) STRICT",
  },
  {
    name: "event",
    sql: "CREATE TABLE event (seq INTEGER PRIMARY KEY, execution INTEGER NOT NULL, " +
      "body TEXT NOT NULL, root TEXT NOT NULL, created_at INTEGER NOT NULL) STRICT",
  },
  {
    name: "answer",
    sql: "CREATE TABLE answer (suspension_id TEXT PRIMARY KEY, value TEXT NOT NULL, " +
      "created_at INTEGER NOT NULL) STRICT",
  },
  ...WORKSPACE_TABLES,
];

/** Creates schema version 2 in an empty database, atomically, the version row last. */
export function initializeSchema(sql: SqlSeam, stamp?: () => void): void {
  sql.transaction(() => {
    for (const table of TABLES) sql.exec(table.sql);
    for (const index of WORKSPACE_INDEXES) sql.exec(index);
    Workspace.createRoot(sql);
    sql.exec("INSERT INTO xmd_meta (key, value) VALUES ('format', ?)", FORMAT);
    stamp?.();
    sql.exec(
      "INSERT INTO xmd_meta (key, value) VALUES ('schema_version', ?)",
      String(SCHEMA_VERSION),
    );
  }, "initialize");
}

/**
 * Moves a recognized version-1 database to version 2, in one transaction of
 * its own that rewrites the version row (and what `stamp` adds: locally the
 * SQLite header's `user_version`); a version-2 database is left as it is.
 * For a writer, before its first write: its tables are version 1's, so
 * nothing else changes.
 */
export function upgradeSchema(sql: SqlSeam, stamp?: () => void): void {
  const [row] = sql.exec("SELECT value FROM xmd_meta WHERE key = 'schema_version'");
  if (row?.value !== "1") return;
  sql.transaction(() => {
    sql.exec(
      "UPDATE xmd_meta SET value = ? WHERE key = 'schema_version' AND value = '1'",
      String(SCHEMA_VERSION),
    );
    stamp?.();
  }, "upgrade");
}

/** Whether the database holds no schema at all. */
export function isEmptyDatabase(sql: SqlSeam): boolean {
  return sql.exec(
    "SELECT count(*) AS n FROM sqlite_master WHERE name NOT LIKE '\\_%' ESCAPE '\\'",
  )[0]
    .n === 0;
}

/**
 * Checks that the database is a complete run database of schema version 1
 * or 2, reading only. `where` names it in messages.
 */
export function recognizeSchema(sql: SqlSeam, where: string): void {
  const present = new Map<string, string>();
  for (const row of sql.exec("SELECT name, sql FROM sqlite_master WHERE type = 'table'")) {
    if (typeof row.name === "string" && !row.name.startsWith("_cf_")) {
      present.set(row.name, String(row.sql));
    }
  }
  // A foreign table that happens to be named xmd_meta is not ours either.
  const metaSql = TABLES.find((table) => table.name === "xmd_meta")?.sql;
  if (present.get("xmd_meta") !== metaSql) {
    throw new WorkflowDatabaseFormatError(
      `Cannot open ${where}: it is not an xmd run database. Leave it alone or remove it`,
    );
  }
  const meta = new Map(
    sql.exec("SELECT key, value FROM xmd_meta").map((row) => [String(row.key), String(row.value)]),
  );
  if (meta.get("format") !== FORMAT) {
    throw new WorkflowDatabaseFormatError(
      `Cannot open ${where}: it is not an xmd run database. Leave it alone or remove it`,
    );
  }
  const version = meta.get("schema_version");
  if (version === undefined) {
    throw new WorkflowDatabaseCorruptError(
      `Cannot open ${where}: its initialization did not finish (no schema version). It is left as it is`,
    );
  }
  if (!/^[1-9]\d*$/.test(version)) {
    throw new WorkflowDatabaseCorruptError(
      `Cannot open ${where}: its schema version is unreadable. It is left as it is`,
    );
  }
  if (Number(version) > SCHEMA_VERSION) {
    throw new WorkflowSchemaVersionError(
      `Cannot open ${where}: it has schema version ${version}, newer than this xmd reads (${SCHEMA_VERSION}). Upgrade xmd`,
    );
  }
  for (const table of TABLES) {
    if (present.get(table.name) !== table.sql) {
      throw new WorkflowDatabaseCorruptError(
        `Cannot open ${where}: table ${table.name} is missing or altered. It is left as it is`,
      );
    }
  }
}
