/**
 * The SQL seam over a SQLite-backed Durable Object's storage: `ctx.storage.sql`
 * runs statements and `ctx.storage.transactionSync` makes them atomic. Durable
 * Objects refuse `BEGIN` and `SAVEPOINT` statements, but `transactionSync`
 * nests (an inner call is a savepoint), which is exactly the seam's contract,
 * so the same storage engine runs here unchanged.
 *
 * Invariants:
 * - Only the structural subset of the Durable Object API declared here is
 *   used, so the module needs no Cloudflare type package.
 * - Blobs cross the seam as `Uint8Array` both ways (Durable Objects return
 *   `ArrayBuffer`); a `bigint` is bound as a number only when it is exact.
 * - A transaction whose function returns a promise is refused and rolled
 *   back: the seam is synchronous everywhere.
 *
 * @module
 */
import type { SqlRow, SqlSeam, SqlValue } from "../sql/sql-seam.ts";

/** A value a Durable Object binds to a statement. */
export type DurableObjectSqlBinding = null | number | string | ArrayBuffer | Uint8Array;

/** A value a Durable Object returns in a row. */
export type DurableObjectSqlResult = null | number | string | ArrayBuffer;

/** The part of Cloudflare's `SqlStorage` (`ctx.storage.sql`) the seam uses. */
export interface DurableObjectSql {
  /** Runs one statement with positional `?` bindings. */
  exec(
    query: string,
    ...bindings: DurableObjectSqlBinding[]
  ): { toArray(): Record<string, DurableObjectSqlResult>[] };
}

/** The part of Cloudflare's `DurableObjectStorage` (`ctx.storage`) the seam uses. */
export interface DurableObjectSqlStorage {
  /** The object's SQLite database. */
  readonly sql: DurableObjectSql;
  /** Runs `closure` in a transaction (a savepoint when nested); rolls back when it throws. */
  transactionSync<T>(closure: () => T): T;
}

/**
 * A `SqlSeam` over a SQLite-backed Durable Object's `ctx.storage`.
 *
 * @example A run store inside a Durable Object
 * ```ts
 * import { DurableObjectSeam, type DurableObjectSqlStorage } from "@xmd/workflow/cloudflare";
 * import { isEmptyDatabase, initializeSchema, recognizeSchema, RunStore } from "@xmd/workflow";
 *
 * export class WorkflowRun {
 *   readonly store: RunStore;
 *   constructor(ctx: { storage: DurableObjectSqlStorage }) {
 *     const seam = new DurableObjectSeam(ctx.storage);
 *     if (isEmptyDatabase(seam)) initializeSchema(seam);
 *     recognizeSchema(seam, "this run's Durable Object");
 *     this.store = new RunStore(seam, "this run's Durable Object");
 *   }
 * }
 * ```
 */
export class DurableObjectSeam implements SqlSeam {
  readonly #storage: DurableObjectSqlStorage;

  /** Wraps the storage of one SQLite-backed Durable Object. */
  constructor(storage: DurableObjectSqlStorage) {
    this.#storage = storage;
  }

  /** Runs one statement and returns every row. */
  exec(sql: string, ...params: SqlValue[]): SqlRow[] {
    const rows = this.#storage.sql.exec(sql, ...params.map(toBinding)).toArray();
    for (const row of rows) fromResultRow(row);
    return rows as SqlRow[];
  }

  /** Runs `fn` in `transactionSync`, which is a savepoint when one is already open. */
  transaction<T>(fn: () => T): T {
    return this.#storage.transactionSync(() => {
      const result = fn();
      if (result instanceof Promise) {
        throw new TypeError("A SQL transaction must be synchronous");
      }
      return result;
    });
  }
}

function toBinding(value: SqlValue): DurableObjectSqlBinding {
  if (typeof value !== "bigint") return value;
  if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw new RangeError(
      "Cannot bind an integer beyond 2^53 in a Durable Object: it would lose precision",
    );
  }
  return Number(value);
}

/** `row` (a fresh object of `toArray`'s, owned here) with each blob as a `Uint8Array`, in place. */
function fromResultRow(row: Record<string, DurableObjectSqlResult>): SqlRow {
  const out = row as Record<string, DurableObjectSqlResult | Uint8Array>;
  for (const column in out) {
    const value = out[column];
    if (value instanceof ArrayBuffer) out[column] = new Uint8Array(value);
  }
  return out as SqlRow;
}
