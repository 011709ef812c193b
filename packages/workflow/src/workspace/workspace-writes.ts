/**
 * What the current live effect newly wrote into the Workspace, noted on its
 * connection as it writes, so that it passes the secret gate before the
 * effect commits (see `gate-writes.ts`): the chunks it inserted, the chunk
 * lists it gave files (for the bytes around chunk boundaries), the names it
 * created and the symlink targets it stored.
 *
 * Invariants:
 * - Writes are noted only between `startNoting` and `takeWrites` (one held
 *   effect transaction); other writes (initialization, tests) note nothing.
 * - A chunk is noted only when this write inserted it: a chunk already
 *   stored was gated when it was first written (content addressing), so it
 *   is never scanned twice.
 * - Notes only grow during an effect; a savepoint that rolls back leaves its
 *   notes behind, so the gate reads back what still exists and skips the rest.
 *
 * @module
 */
import type { SqlSeam } from "../sql/sql-seam.ts";

/** A file's content as one write set it. */
export interface ContentWrite {
  /** The canonical path written. */
  readonly path: string;
  /** Its chunk hashes, in order. */
  readonly chunks: readonly string[];
}

/** A directory entry created. */
export interface NameWrite {
  /** The directory's inode. */
  readonly parent: number;
  /** The entry's name. */
  readonly name: string;
}

/** A symlink created. */
export interface TargetWrite {
  /** Its inode. */
  readonly ino: number;
  /** Its target, verbatim. */
  readonly target: string;
}

/** Everything one effect wrote, in order. */
export interface WorkspaceWrites {
  /** Chunks inserted (not already stored). */
  readonly chunks: Set<string>;
  /** Every content set, in order. */
  readonly contents: ContentWrite[];
  /** Every entry created, in order. */
  readonly names: NameWrite[];
  /** Every symlink created, in order. */
  readonly targets: TargetWrite[];
}

const noting = new WeakMap<SqlSeam, WorkspaceWrites>();

/** Starts noting the writes made on `sql` (a held effect transaction began). */
export function startNoting(sql: SqlSeam): void {
  noting.set(sql, { chunks: new Set(), contents: [], names: [], targets: [] });
}

/** Stops noting and returns what was noted since `startNoting` (undefined if it was not called). */
export function takeWrites(sql: SqlSeam): WorkspaceWrites | undefined {
  const writes = noting.get(sql);
  noting.delete(sql);
  return writes;
}

/** Notes a chunk this write inserted. */
export function noteChunk(sql: SqlSeam, hash: string): void {
  noting.get(sql)?.chunks.add(hash);
}

/** Notes the chunk list a file was given. */
export function noteContent(sql: SqlSeam, path: string, chunks: readonly string[]): void {
  noting.get(sql)?.contents.push({ path, chunks });
}

/** Notes a created directory entry. */
export function noteName(sql: SqlSeam, parent: number, name: string): void {
  noting.get(sql)?.names.push({ parent, name });
}

/** Notes a created symlink. */
export function noteTarget(sql: SqlSeam, ino: number, target: string): void {
  noting.get(sql)?.targets.push({ ino, target });
}

/** Whether writes on `sql` are being noted (so a writer knows whether to look for new chunks). */
export function isNoting(sql: SqlSeam): boolean {
  return noting.has(sql);
}
