/**
 * The SQL seam over `node:sqlite`: one authoritative connection per run
 * database. Statements are prepared once and cached, and read their rows as
 * arrays that the seam makes into plain objects, one property per column in
 * the statement's column order (a repeated name keeps its last value, as
 * `node:sqlite`'s own objects do). `node:sqlite` builds a row object as a
 * dictionary with no prototype, which costs about twice as much to build and
 * makes every later read of it (zod's parse, each property access) a
 * dictionary lookup; objects built in one order share one shape. The outermost
 * transaction is `BEGIN IMMEDIATE` (the write lock is taken up front, so a
 * transaction never fails half-way for lack of it), nested ones are
 * savepoints. SQLite's own corruption reports (`SQLITE_CORRUPT`,
 * `SQLITE_NOTADB`), wherever they surface, become
 * `WorkflowDatabaseCorruptError`: damage found late is as typed as damage
 * found at open. A write refused as `SQLITE_BUSY` after the busy timeout is
 * `RunBusyError`: every writer holds the run's executor lock, so another
 * writer means that lock was defeated (its `.lock` file deleted or replaced
 * while a run executed), and SQLite's own write lock is what stops it.
 *
 * @module
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { RunBusyError, WorkflowDatabaseCorruptError } from "../contracts/workflow-errors.ts";
import type { HeldTransaction, SqlRow, SqlSeam, SqlValue } from "../sql/sql-seam.ts";

const SQLITE_BUSY = 5;
const SQLITE_CORRUPT = 11;
const SQLITE_NOTADB = 26;

/** A `SqlSeam` over one `node:sqlite` connection. */
export class NodeSqliteSeam implements SqlSeam, Disposable {
  readonly #db: DatabaseSync;
  readonly #where: string;
  readonly #close: () => void;
  readonly #statements = new Map<string, Prepared>();
  #depth = 0;
  #rollbacks = 0;

  /**
   * Wraps an open connection; the seam owns it from now on. `where` names the
   * database in messages; `close` closes the connection when the seam is
   * disposed (by default `db.close()`).
   */
  constructor(db: DatabaseSync, where = "the run database", close?: () => void) {
    this.#db = db;
    this.#where = where;
    this.#close = close ?? (() => db.close());
  }

  /** Runs one statement. */
  exec(sql: string, ...params: SqlValue[]): SqlRow[] {
    try {
      let prepared = this.#statements.get(sql);
      if (!prepared) {
        prepared = prepare(this.#db, sql);
        this.#statements.set(sql, prepared);
      }
      const rows = prepared.statement.all(...params) as unknown as (SqlRow | SqlValue[])[];
      const names = prepared.names;
      if (names) {
        for (let i = 0; i < rows.length; i++) rows[i] = rowOf(names, rows[i] as SqlValue[]);
      }
      return rows as SqlRow[];
    } catch (error) {
      throw this.#typed(error);
    }
  }

  /**
   * Holds an outermost transaction for one effect. It takes no savepoint: a
   * savepoint open while the effect writes makes SQLite copy every page the
   * effect first changes into its statement journal. Everything since the
   * `BEGIN` is the effect's, so its discard is a `ROLLBACK` and a new
   * `BEGIN IMMEDIATE`, which leaves what a savepoint taken at the `BEGIN`
   * would.
   */
  hold(): HeldTransaction {
    if (this.#depth !== 0) {
      throw new Error("A held transaction must be outermost; this is a bug in xmd");
    }
    this.#control("BEGIN IMMEDIATE");
    this.#depth = 1;
    let open = true;
    const end = (sql: string[]) => {
      if (!open) return;
      open = false;
      this.#depth = 0;
      for (const statement of sql) this.#control(statement);
    };
    return {
      discard: () => {
        if (!open) return;
        this.#rollbacks++;
        if (this.#db.isTransaction) this.#control("ROLLBACK");
        this.#control("BEGIN IMMEDIATE");
      },
      commit: () => {
        try {
          end(["COMMIT"]);
        } catch (error) {
          // Some failed COMMITs leave the transaction open (a deferred constraint, a busy
          // database); it is over for the caller either way, so what it wrote is rolled back
          // and the connection can begin the next one.
          this.#rollbacks++;
          if (this.#db.isTransaction) this.#db.exec("ROLLBACK");
          throw error;
        }
      },
      rollback: () => {
        if (open) this.#rollbacks++;
        end(this.#db.isTransaction ? ["ROLLBACK"] : []);
      },
    };
  }

  /** Runs `fn` in a transaction, or in a savepoint when one is open. */
  transaction<T>(fn: () => T): T {
    const depth = this.#depth;
    const savepoint = `xmd_${depth}`;
    this.#control(depth === 0 ? "BEGIN IMMEDIATE" : `SAVEPOINT ${savepoint}`);
    this.#depth++;
    try {
      const result = fn();
      if (result instanceof Promise) {
        throw new TypeError("A SQL transaction must be synchronous");
      }
      this.#control(depth === 0 ? "COMMIT" : `RELEASE ${savepoint}`);
      return result;
    } catch (error) {
      this.#rollbacks++;
      if (depth === 0) {
        if (this.#db.isTransaction) this.#db.exec("ROLLBACK");
      } else {
        this.#db.exec(`ROLLBACK TO ${savepoint}`);
        this.#db.exec(`RELEASE ${savepoint}`);
      }
      throw error;
    } finally {
      this.#depth = depth;
    }
  }

  /** Rollbacks on this connection so far (savepoints, transactions, held effects). */
  get rollbacks(): number {
    return this.#rollbacks;
  }

  #control(sql: string): void {
    try {
      this.#db.exec(sql);
    } catch (error) {
      if (isBusy(error)) {
        throw new RunBusyError(
          `Cannot write ${this.#where}: another process is writing it, although this one holds its ` +
            "executor lock (the run's .lock file was deleted or replaced while that process ran)",
          { cause: error },
        );
      }
      throw this.#typed(error);
    }
  }

  #typed(error: unknown): unknown {
    const code = (error as { errcode?: unknown }).errcode;
    if (typeof code !== "number") return error;
    const primary = code & 0xff;
    if (primary !== SQLITE_CORRUPT && primary !== SQLITE_NOTADB) return error;
    return new WorkflowDatabaseCorruptError(
      `Cannot read ${this.#where}: SQLite reports it damaged. It is left as it is`,
      { cause: error },
    );
  }

  /** Closes the connection. */
  [Symbol.dispose](): void {
    this.#statements.clear();
    if (this.#db.isOpen) this.#close();
  }
}

/**
 * A cached statement and its columns' names, when it reads rows as arrays
 * (undefined: a runtime without `setReturnArrays`, whose rows are objects).
 */
interface Prepared {
  readonly statement: StatementSync;
  readonly names: readonly string[] | undefined;
}

/** `StatementSync` as the runtime has it (Deno 2.9's types omit `setReturnArrays`). */
type ArrayStatement = StatementSync & { setReturnArrays?(enabled: boolean): void };

function prepare(db: DatabaseSync, sql: string): Prepared {
  const statement: ArrayStatement = db.prepare(sql);
  if (typeof statement.setReturnArrays !== "function") return { statement, names: undefined };
  statement.setReturnArrays(true);
  return { statement, names: statement.columns().map((column) => column.name) };
}

/** A row's values as a plain object by column name (a later column of a name wins). */
function rowOf(names: readonly string[], values: SqlValue[]): SqlRow {
  const row: SqlRow = {};
  for (let i = 0; i < names.length; i++) {
    const name = names[i];
    // Assigning `__proto__` would set the prototype instead of a property.
    if (name === "__proto__") {
      Object.defineProperty(row, name, {
        value: values[i],
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else row[name] = values[i];
  }
  return row;
}

function isBusy(error: unknown): boolean {
  const { errcode, code, message } = error as {
    errcode?: unknown;
    code?: unknown;
    message?: unknown;
  };
  if (typeof errcode === "number") return (errcode & 0xff) === SQLITE_BUSY;
  // Deno's `DatabaseSync.exec` reports no `errcode`: only SQLite's fixed text for SQLITE_BUSY.
  return code === "ERR_SQLITE_ERROR" && message === "database is locked";
}
