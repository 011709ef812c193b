/**
 * Opening a local run database: recognized before it is trusted.
 *
 * Invariants:
 * - A file is read as bytes (its SQLite header: magic, `application_id`,
 *   `user_version`) before SQLite opens it for writing; a foreign, newer or
 *   partially initialized file is refused with a typed error and left
 *   byte-for-byte unchanged.
 * - Only an empty (0-byte or new) file is initialized, in one transaction
 *   whose last write is the schema version; WAL and `synchronous=FULL` are
 *   set only after that.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import {
  WorkflowDatabaseCorruptError,
  WorkflowDatabaseFormatError,
  WorkflowSchemaVersionError,
} from "../contracts/workflow-errors.ts";
import { initializeSchema, recognizeSchema, SCHEMA_VERSION } from "../store/schema.ts";
import type { SqlSeam } from "../sql/sql-seam.ts";
import { withFailpoint } from "./failpoint.ts";
import { NodeSqliteSeam } from "./node-sqlite-seam.ts";

/** `application_id` of an xmd run database: "XMDR". */
export const APPLICATION_ID = 0x584d4452;

const MAGIC = "SQLite format 3\0";

/** Whether the file at `path` is missing or empty. */
async function isEmptyFile(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).size === 0;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return true;
    throw error;
  }
}

/** Reads and checks the SQLite header of a non-empty file without opening it as a database. */
async function checkHeader(path: string, where: string): Promise<void> {
  const file = await Deno.open(path, { read: true });
  const header = new Uint8Array(100);
  let read = 0;
  try {
    while (read < 100) {
      const n = await file.read(header.subarray(read));
      if (n === null) break;
      read += n;
    }
  } finally {
    file.close();
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
}

/** An open run database. */
export interface OpenRunDatabase {
  /** The SQL seam over its one connection (armed when `XMD_FAILPOINT` is set). */
  seam: SqlSeam & Disposable;
  /** Whether it was just initialized. */
  created: boolean;
}

/**
 * Opens the run database at `path`. With `create`, a missing or empty file is
 * initialized; without it, a missing or empty file is `undefined`.
 */
export async function openRunDatabase(
  path: string,
  where: string,
  options: { create: boolean },
): Promise<OpenRunDatabase | undefined> {
  if (await isEmptyFile(path)) {
    if (!options.create) return undefined;
    const seam = withFailpoint(() => new NodeSqliteSeam(connect(path), where));
    try {
      initializeSchema(seam, () => {
        seam.exec(`PRAGMA application_id = ${APPLICATION_ID}`);
        seam.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
      });
      configure(seam);
    } catch (error) {
      seam[Symbol.dispose]();
      throw error;
    }
    return { seam, created: true };
  }
  await checkHeader(path, where);
  const seam = withFailpoint(() => new NodeSqliteSeam(connect(path), where));
  try {
    recognizeSchema(seam, where);
    configure(seam);
  } catch (error) {
    seam[Symbol.dispose]();
    throw error;
  }
  return { seam, created: false };
}

/**
 * Opens a connection that waits for a concurrent writer instead of failing at
 * once; setting the timeout writes nothing to the file.
 */
function connect(path: string): DatabaseSync {
  const db = new DatabaseSync(path);
  db.exec("PRAGMA busy_timeout = 10000");
  return db;
}

function configure(seam: SqlSeam): void {
  seam.exec("PRAGMA journal_mode = WAL");
  seam.exec("PRAGMA synchronous = FULL");
}
