/**
 * The synchronous SQL seam every run store is written against: `exec` returns
 * rows, `transaction` commits or rolls back, and a nested `transaction` is a
 * savepoint that rolls back alone when its function throws. The Deno driver
 * adapts `node:sqlite`; the Durable Object driver adapts `ctx.storage.sql` and
 * `transactionSync`, which nest the same way.
 *
 * @module
 */
import type { CommitPoint } from "../store/commit-points.ts";

/** A value bound to or read from SQL. */
export type SqlValue = null | number | bigint | string | Uint8Array;

/** A result row, by column name. */
export type SqlRow = Record<string, SqlValue>;

/**
 * An outermost transaction held open across awaits, for one live Workspace
 * effect (a shell block's many filesystem calls, then its journal event).
 * Statements and `transaction` calls made while it is open join it (nested
 * calls are savepoints).
 */
export interface HeldTransaction {
  /** Rolls back everything the effect changed, keeping the transaction open for its event. */
  discard(): void;
  /** Commits the effect and its event. */
  commit(): void;
  /** Rolls everything back and ends the transaction. */
  rollback(): void;
}

/** The minimal synchronous SQL interface the storage engine needs. */
export interface SqlSeam {
  /** Runs one statement with positional `?` parameters and returns its rows. */
  exec(sql: string, ...params: SqlValue[]): SqlRow[];
  /**
   * Runs `fn` atomically: the outermost call is a transaction, nested calls are
   * savepoints. `label` names the commit point an outermost call is, for
   * instrumentation (the local provider's failpoints); a driver may ignore it.
   */
  transaction<T>(fn: () => T, label?: CommitPoint): T;
  /**
   * Opens a held transaction (drivers whose connection belongs to one
   * executor; a Durable Object has none, its effects arrive as whole commits).
   */
  hold?(label: CommitPoint): HeldTransaction;
  /**
   * How many times this connection has rolled changes back (a savepoint, a
   * transaction, a held effect's discard) since it opened, for a caller that
   * must know whether something written since it last looked may be gone;
   * undefined when the driver does not count (then anything may be).
   */
  readonly rollbacks?: number;
}
