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
 *   Only a rollback or a removal (an entry unlinked or renamed away, the
 *   Workspace replaced) can make a noted write cease to exist, and inserted
 *   chunks are removed by nothing else: while the connection counts no
 *   rollback and no removal was noted since `startNoting`, every note still
 *   exists (`intact`), and the gate need not read it back. The bytes of new
 *   chunks are kept, up to `KEPT_BYTES` in all, for the gate to scan without
 *   reading them back then.
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

/** Bytes of new chunks kept in memory per effect, in all (beyond, the gate reads them back). */
export const KEPT_BYTES = 256 * 1024;

/** Everything one effect wrote, in order. */
export interface WorkspaceWrites {
  /** Chunks inserted (not already stored). */
  readonly chunks: Set<string>;
  /** Copies of the bytes of chunks inserted, while they fit in `KEPT_BYTES`. */
  readonly kept: Map<string, Uint8Array>;
  /** Bytes in `kept`. */
  keptBytes: number;
  /** Every content set, in order. */
  readonly contents: ContentWrite[];
  /** Every entry created, in order. */
  readonly names: NameWrite[];
  /** Every symlink created, in order. */
  readonly targets: TargetWrite[];
  /** The connection's rollbacks when noting started (undefined: it does not count them). */
  readonly rollbacks: number | undefined;
  /** Whether an entry was removed or the Workspace replaced since noting started. */
  removed: boolean;
}

const noting = new WeakMap<SqlSeam, WorkspaceWrites>();

/** Starts noting the writes made on `sql` (a held effect transaction began). */
export function startNoting(sql: SqlSeam): void {
  noting.set(sql, {
    chunks: new Set(),
    kept: new Map(),
    keptBytes: 0,
    contents: [],
    names: [],
    targets: [],
    rollbacks: sql.rollbacks,
    removed: false,
  });
}

/**
 * Whether everything `writes` noted on `sql` still exists: the connection
 * counts its rollbacks and has rolled nothing back since noting started, and
 * nothing was removed.
 */
export function intact(sql: SqlSeam, writes: WorkspaceWrites): boolean {
  return writes.rollbacks !== undefined && sql.rollbacks === writes.rollbacks && !writes.removed;
}

/** Stops noting and returns what was noted since `startNoting` (undefined if it was not called). */
export function takeWrites(sql: SqlSeam): WorkspaceWrites | undefined {
  const writes = noting.get(sql);
  noting.delete(sql);
  return writes;
}

/** Notes a chunk this write inserted, and keeps a copy of its bytes while they fit. */
export function noteChunk(sql: SqlSeam, hash: string, data: Uint8Array): void {
  const writes = noting.get(sql);
  if (!writes) return;
  writes.chunks.add(hash);
  if (writes.keptBytes + data.length > KEPT_BYTES) return;
  writes.keptBytes += data.length;
  // A copy: a writer may reuse its buffer for the next chunk.
  writes.kept.set(hash, data.slice());
}

/** Notes that an entry was removed or the Workspace replaced: a noted write may be gone. */
export function noteRemoval(sql: SqlSeam): void {
  const writes = noting.get(sql);
  if (writes) writes.removed = true;
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
