/**
 * The SQL seam over `node:sqlite`: one authoritative connection per run
 * database. Statements are prepared once and cached; the outermost
 * transaction is `BEGIN IMMEDIATE` (the write lock is taken up front, so a
 * transaction never fails half-way for lack of it), nested ones are
 * savepoints.
 *
 * @module
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { SqlRow, SqlSeam, SqlValue } from "../sql/sql-seam.ts";

/** A `SqlSeam` over one `node:sqlite` connection. */
export class NodeSqliteSeam implements SqlSeam, Disposable {
  readonly #db: DatabaseSync;
  readonly #statements = new Map<string, StatementSync>();
  #depth = 0;

  /** Wraps an open connection; the seam owns it from now on. */
  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  /** Runs one statement. */
  exec(sql: string, ...params: SqlValue[]): SqlRow[] {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement.all(...params) as SqlRow[];
  }

  /** Runs `fn` in a transaction, or in a savepoint when one is open. */
  transaction<T>(fn: () => T): T {
    const depth = this.#depth;
    const savepoint = `xmd_${depth}`;
    this.#db.exec(depth === 0 ? "BEGIN IMMEDIATE" : `SAVEPOINT ${savepoint}`);
    this.#depth++;
    try {
      const result = fn();
      if (result instanceof Promise) {
        throw new TypeError("A SQL transaction must be synchronous");
      }
      this.#db.exec(depth === 0 ? "COMMIT" : `RELEASE ${savepoint}`);
      return result;
    } catch (error) {
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

  /** Closes the connection. */
  [Symbol.dispose](): void {
    this.#statements.clear();
    if (this.#db.isOpen) this.#db.close();
  }
}
