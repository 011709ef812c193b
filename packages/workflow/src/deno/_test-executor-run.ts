/**
 * Test support for the executor's storage: a run database in a temp dir
 * holding one created (`running`) run of a document, and a dump of every
 * row of it read over a connection of its own, to prove a refusal changed
 * nothing.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { RunStore } from "../store/run-store.ts";
import type { SqlSeam } from "../sql/sql-seam.ts";
import { openRunDatabase } from "./run-database.ts";

/** A created run: its database file, its store and the execution that holds it. */
export interface CreatedRun {
  /** The database file. */
  path: string;
  /** The store over the writing connection. */
  store: RunStore;
  /** The seam of that connection. */
  seam: SqlSeam;
  /** The execution `create` began. */
  execution: number;
}

/** Runs `fn` on a new run of `document` (as `doc.md`), removed afterwards. */
export async function withCreatedRun<T>(
  document: string,
  fn: (run: CreatedRun) => T | Promise<T>,
): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "xmd-executor-" });
  try {
    const path = join(dir, "run.sqlite");
    const opened = await openRunDatabase(path, 'run "executor"', { create: true });
    using seam = opened!.seam;
    const store = new RunStore(seam, 'run "executor"');
    const execution = store.create({
      id: "executor",
      document: "doc.md",
      target: null,
      definitionHash: "0".repeat(64),
      props: {},
      propsHash: "0".repeat(64),
      sources: [{ label: "doc.md", text: document, root: true }],
    });
    return await fn({ path, store, seam, execution });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Every row of every table of the database at `path`, over its own read-only connection. */
export function dumpDatabase(path: string): string {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const tables = db.prepare(
      "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name",
    ).all() as { name: string }[];
    return JSON.stringify(
      tables.map(({ name }) => [name, db.prepare(`SELECT * FROM "${name}"`).all()]),
      (_key, value) => value instanceof Uint8Array ? [...value] : value,
    );
  } finally {
    db.close();
  }
}
