/**
 * Root publication: hashes the dirty part of the Workspace bottom-up into
 * immutable objects and returns the root id. Clean inodes keep their cached
 * hash, so the cost follows the directories on changed paths, not the size
 * of the Workspace.
 *
 * A dirty directory whose changes are recorded (`publication-memory.ts`) is
 * rebuilt from its previous tree by re-reading only the changed names, so a
 * one-file change costs the same in a directory of any size. Any other is
 * rebuilt from all its entries by SQLite in one statement: `ORDER BY d.name`
 * under the BINARY collation of a UTF-8 database is UTF-8 byte order (WS-18),
 * and `json_array` writes strings and integers as `JSON.stringify` does
 * (WS-16). `treeObject` in `root-format.ts` is the reference encoding the
 * tests hold both to. A tree rebuilt from its previous one is spliced into
 * that tree's text (`tree-text.ts`) and stored as a delta against the
 * earlier tree its version's skip-delta names (`skip-deltas.ts`,
 * `object-store.ts`); any other object as its full text.
 *
 * @module
 */
import { lazySchema } from "@xmd/core/protocol";
import * as z from "zod/mini";
import { WorkflowDatabaseCorruptError } from "../contracts/workflow-errors.ts";
import type { SqlSeam } from "../sql/sql-seam.ts";
import {
  changesIn,
  committed,
  forgetChanges,
  recallTree,
  rememberTree,
  type SortedTree,
} from "./publication-memory.ts";
import { readObjectText, storeObject } from "./object-store.ts";
import {
  fileObject,
  objectHash,
  portableSha256,
  type Sha256,
  treeObjectOf,
} from "./root-format.ts";
import {
  deltaBody,
  type EntryChange,
  nextHistory,
  origin,
  type SkipDelta,
  skipDelta,
} from "./skip-deltas.ts";
import { hashTreeText, type ResumeFrom } from "./tree-hash.ts";
import { PatchedTreeText, type TreeText, treeTextOf } from "./tree-text.ts";
import { TreeObjectSchema } from "./verify-root.ts";
import { ROOT_INO } from "./workspace.ts";

const HASH = /^[0-9a-f]{64}$/;
const InodeSchema = lazySchema(() =>
  z.object({
    kind: z.enum(["dir", "file", "symlink"]),
    size: z.number().check(z.int(), z.nonnegative()),
    chunks: z.nullable(z.string()),
    hash: z.nullable(z.string().check(z.regex(HASH))),
  })
);
/** A directory entry with its inode, as publication reads a changed name. */
const EntryRowSchema = lazySchema(() =>
  z.object({
    ino: z.number().check(z.int()),
    kind: z.enum(["dir", "file", "symlink"]),
    mode: z.number().check(z.int()),
    target: z.nullable(z.string()),
    size: z.number().check(z.int(), z.nonnegative()),
    chunks: z.nullable(z.string()),
    hash: z.nullable(z.string().check(z.regex(HASH))),
  })
);
type EntryRow = z.infer<typeof EntryRowSchema>;
const ChunksSchema = lazySchema(() => z.array(z.string().check(z.regex(HASH))));
const EntriesSchema = lazySchema(() =>
  z.object({ entries: z.string().check(z.startsWith("[")), missing: z.literal(0) })
);

/**
 * Publishes the current Workspace state and returns its root id (within the
 * caller's transaction). `sha256` is the hash objects are named with: any
 * implementation of SHA-256 gives the same root.
 */
export function publishRoot(sql: SqlSeam, sha256: Sha256 = portableSha256): string {
  return hashOf(sql, sha256, ROOT_INO);
}

/**
 * Tells publication that the outermost transaction on `sql` committed, so
 * that it may rebuild the next changes incrementally (when that commit left
 * the Workspace published: `published` when the caller knows, as when it
 * published the root last in that transaction; else it is read).
 */
export function publicationCommitted(sql: SqlSeam, published?: boolean): void {
  if (published !== undefined) return committed(sql, published);
  const root = sql.exec("SELECT hash FROM ws_inode WHERE ino = ?", ROOT_INO)[0];
  committed(sql, typeof root?.hash === "string");
}

/** Forgets every cached hash, so the next publication rehashes everything (for measurements). */
export function forgetHashes(sql: SqlSeam): void {
  sql.exec("UPDATE ws_inode SET hash = NULL");
  forgetChanges(sql);
}

/**
 * What one publication has read and hashed: the changed names of recorded
 * directories with their inodes as first looked up (undefined: removed), and
 * the hashes computed since. A name's row is read once: its directory's tree
 * is rebuilt from it, with the hash its inode was given in the same walk.
 */
interface Walk {
  entries: Map<number, Map<string, EntryRow | undefined>>;
  hashes: Map<number, string>;
}

/** An inode to hash, with its row when a changed name's lookup read it. */
interface Pending {
  ino: number;
  expanded: boolean;
  row?: EntryRow;
}

/**
 * The object hash of inode `top`, hashing its dirty descendants first. The
 * walk keeps its own stack (children before their directory) rather than
 * recursing, so a tree of any depth publishes; a directory met again while it
 * is still open is a cycle, which only damage can make.
 */
function hashOf(sql: SqlSeam, sha256: Sha256, top: number): string {
  const walk: Walk = { entries: new Map(), hashes: new Map() };
  // Files have no children: only directories are opened.
  const stack: Pending[] = [{ ino: top, expanded: false }];
  const open = new Set<number>();
  // `top` is the last inode popped, so the walk ends holding its hash.
  let hash = "";
  while (stack.length > 0) {
    const item = stack[stack.length - 1];
    if (item.expanded) {
      stack.pop();
      open.delete(item.ino);
      hash = hashOne(sql, sha256, item.ino, walk, item.row);
      continue;
    }
    if (open.has(item.ino)) throw corrupt(item.ino);
    item.expanded = true;
    open.add(item.ino);
    stack.push(...dirtyChildren(sql, item.ino, walk));
  }
  return hash;
}

/**
 * The dirty children (files and directories) of directory `ino`. When its
 * changes are recorded, only the names changed in it can be dirty (every
 * inode was clean at the last published commit, and every change since noted
 * its name in each directory above it), so only those are looked up, and
 * kept for its tree: the cost follows the changes, not the size of the
 * directory.
 */
function dirtyChildren(sql: SqlSeam, ino: number, walk: Walk): Pending[] {
  const changes = changesIn(sql, ino);
  if (!changes) {
    return sql.exec(
      "SELECT d.ino, i.kind FROM ws_dirent d JOIN ws_inode i ON i.ino = d.ino " +
        "WHERE d.parent = ? AND i.hash IS NULL AND i.kind != 'symlink'",
      ino,
    ).map((child) => ({ ino: Number(child.ino), expanded: child.kind !== "dir" }));
  }
  const looked = new Map<string, EntryRow | undefined>();
  walk.entries.set(ino, looked);
  const dirty: Pending[] = [];
  for (const name of changes.names) {
    const row = entryRow(sql, ino, name);
    looked.set(name, row);
    if (row && row.hash === null && row.kind !== "symlink") {
      dirty.push({ ino: row.ino, expanded: row.kind !== "dir", row });
    }
  }
  return dirty;
}

/** Entry `name` of directory `dir` with its inode, or undefined when there is none. */
function entryRow(sql: SqlSeam, dir: number, name: string): EntryRow | undefined {
  const found = sql.exec(
    "SELECT i.ino, i.kind, i.mode, i.target, i.size, i.chunks, i.hash FROM ws_dirent d " +
      "JOIN ws_inode i ON i.ino = d.ino WHERE d.parent = ? AND d.name = ?",
    dir,
    name,
  )[0];
  if (found === undefined) return undefined;
  const row = EntryRowSchema.safeParse(found);
  if (!row.success) throw corrupt(dir);
  return row.data;
}

/**
 * The object hash of one inode whose dirty children are already hashed;
 * `known` is its row when the walk has read it already.
 */
function hashOne(sql: SqlSeam, sha256: Sha256, ino: number, walk: Walk, known?: EntryRow): string {
  // An inode met twice (hard links) is hashed once.
  const done = walk.hashes.get(ino);
  if (done !== undefined) return done;
  let inode: Pick<EntryRow, "kind" | "size" | "chunks" | "hash"> | undefined = known;
  if (inode === undefined) {
    const row = InodeSchema.safeParse(
      sql.exec("SELECT kind, size, chunks, hash FROM ws_inode WHERE ino = ?", ino)[0],
    );
    if (!row.success) throw corrupt(ino);
    inode = row.data;
  }
  if (inode.kind === "symlink") throw corrupt(ino);
  if (inode.hash !== null) return inode.hash;
  if (inode.kind === "file") {
    const text = fileObject(inode.size, parseChunks(inode.chunks, ino));
    return stored(sql, sha256, ino, walk, text);
  }
  const patched = patchedTree(sql, sha256, ino, walk);
  if (!patched) return stored(sql, sha256, ino, walk, treeObjectOf(allEntries(sql, ino)));
  const { tree, delta } = patched;
  const text = tree.text;
  // Resumed from the state saved before the first changed entry (`tree-hash.ts`).
  const { hash, checkpoints } = hashTreeText(tree, sha256, patched.resume);
  const body = deltaBody(delta.changes);
  const asDelta = storeObject(sql, hash, text, { base: delta.base.hash, ...body });
  setHash(sql, ino, walk, hash);
  const history = asDelta ? nextHistory(hash, delta) : origin(hash);
  rememberTree(sql, hash, { ...tree, history, checkpoints }, patched.from);
  return hash;
}

/** Stores object `text` in full as inode `ino`'s, and returns its hash. */
function stored(sql: SqlSeam, sha256: Sha256, ino: number, walk: Walk, text: string): string {
  const hash = objectHash(text, sha256);
  storeObject(sql, hash, text);
  setHash(sql, ino, walk, hash);
  return hash;
}

function setHash(sql: SqlSeam, ino: number, walk: Walk, hash: string): void {
  sql.exec("UPDATE ws_inode SET hash = ? WHERE ino = ?", hash, ino);
  walk.hashes.set(ino, hash);
}

/** A directory's tree rebuilt from a base, and its changes against its skip-delta base. */
interface PatchedTree {
  /** The tree it was rebuilt from. */
  from: string;
  tree: TreeText;
  delta: SkipDelta;
  /** The hash states saved for the tree it was rebuilt from, and the prefix they still hold for. */
  resume: ResumeFrom;
}

/** A directory's entries from its base tree and its changed names; undefined if unrecorded. */
function patchedTree(
  sql: SqlSeam,
  sha256: Sha256,
  ino: number,
  walk: Walk,
): PatchedTree | undefined {
  const changes = changesIn(sql, ino);
  const base = changes && (recallTree(sql, changes.base) ?? storedTree(sql, changes.base, sha256));
  if (!changes || !base) return undefined;
  const looked = walk.entries.get(ino);
  const tree = new PatchedTreeText(base);
  const step = new Map<string, EntryChange>();
  for (const name of changes.names) {
    const before = tree.entry(name);
    const row = looked?.has(name) ? looked.get(name) : entryRow(sql, ino, name);
    if (row === undefined) {
      if (before !== undefined) {
        tree.remove(name);
        step.set(name, { before, after: undefined });
      }
      continue;
    }
    const { kind, mode, target } = row;
    // Every dirty child was hashed before its directory (`hashOf`), in this walk.
    const ref = kind === "symlink" ? target : walk.hashes.get(row.ino) ?? row.hash;
    if (ref === null) throw corrupt(row.ino);
    const after = JSON.stringify([name, kind, mode, ref]);
    if (after === before) continue;
    tree.set(name, after);
    step.set(name, { before, after });
  }
  return {
    from: changes.base,
    tree: tree.done(),
    delta: skipDelta(base.history, step),
    resume: { checkpoints: base.checkpoints ?? [], unchanged: tree.unchanged },
  };
}

/** A stored tree object, parsed; undefined when missing or not a tree (a damaged delta throws). */
function storedTree(sql: SqlSeam, hash: string, sha256: Sha256): SortedTree | undefined {
  const text = readObjectText(sql, hash, "the Workspace", sha256);
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const tree = TreeObjectSchema.safeParse(value);
  if (!tree.success) return undefined;
  const names = tree.data.entries.map(([name]) => name);
  const entries = tree.data.entries.map((entry) => JSON.stringify(entry));
  return { ...treeTextOf(names, entries), history: origin(hash) };
}

/** The canonical JSON array of all a directory's entries (its children are hashed). */
function allEntries(sql: SqlSeam, ino: number): string {
  const row = EntriesSchema.safeParse(
    sql.exec(
      "SELECT json_group_array(json_array(name, kind, mode, ref) ORDER BY name) AS entries, " +
        "count(*) - count(ref) AS missing FROM (SELECT d.name, i.kind, i.mode, " +
        "CASE i.kind WHEN 'symlink' THEN i.target ELSE i.hash END AS ref " +
        "FROM ws_dirent d JOIN ws_inode i ON i.ino = d.ino WHERE d.parent = ?)",
      ino,
    )[0],
  );
  if (!row.success) throw corrupt(ino);
  return row.data.entries;
}

function parseChunks(text: string | null, ino: number): string[] {
  if (text === null) return [];
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw corrupt(ino);
  }
  const chunks = ChunksSchema.safeParse(value);
  if (!chunks.success) throw corrupt(ino);
  return chunks.data;
}

function corrupt(ino: number): WorkflowDatabaseCorruptError {
  return new WorkflowDatabaseCorruptError(
    `Cannot publish the Workspace: inode ${ino} is damaged. It is left as it is`,
  );
}
