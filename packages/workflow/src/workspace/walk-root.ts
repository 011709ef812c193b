/**
 * Reading retained roots: every entry a root holds, and the difference
 * between two roots. Both read only immutable objects through `readObject`
 * and `readChunk`, which check every hash, so what they return is exactly
 * what was published, or a `WorkflowDatabaseCorruptError`.
 *
 * Paths are relative to the Workspace root, `/`-separated
 * (`release/VERSION`). The walk is pre-order in tree order (a directory
 * before its contents, names by UTF-8 bytes), so a writer can create each
 * entry after its parent. The diff descends only into directories whose tree
 * hashes differ: its cost follows the change, not the size of the Workspace.
 *
 * @module
 */
import { WorkflowDatabaseCorruptError } from "../contracts/workflow-errors.ts";
import type { SqlSeam } from "../sql/sql-seam.ts";
import { sha256Hex } from "@xmd/core/protocol";
import type { Sha256, TreeEntry } from "./root-format.ts";
import {
  type FileObject,
  FileObjectSchema,
  readChunk,
  readObject,
  TreeObjectSchema,
} from "./verify-root.ts";
import { compareUtf8 } from "./workspace.ts";

/** One entry of a root. */
export type RootEntry =
  | { path: string; kind: "dir"; mode: number }
  | {
    path: string;
    kind: "file";
    mode: number;
    /** The file object's hash: equal hashes, equal contents. */
    object: string;
    /** Bytes. */
    size: number;
    /**
     * Reads the contents one stored chunk at a time, each checked against its
     * hash, so a file of any size is never held whole; throws at the end if
     * the chunks do not add up to `size`.
     */
    chunks(): Generator<Uint8Array>;
  }
  | { path: string; kind: "symlink"; mode: number; target: string };

/** Paths that differ between two roots, each list sorted by UTF-8 bytes. */
export interface RootDiff {
  /** In the second root only (a new directory brings its contents). */
  added: string[];
  /** In the first root only (a removed directory takes its contents). */
  removed: string[];
  /** In both, with a different file object, mode, symlink target or kind. */
  changed: string[];
}

/** Every entry root `root` holds, pre-order in tree order, each file's contents read on demand. */
export function* walkRoot(
  sql: SqlSeam,
  root: string,
  where = "the Workspace",
  sha256: Sha256 = sha256Hex,
): Generator<RootEntry> {
  for (const { path, entry } of walkTree(sql, root, "", where, sha256)) {
    if (entry.kind === "dir") yield { path, kind: "dir", mode: entry.mode };
    else if (entry.kind === "symlink") {
      yield { path, kind: "symlink", mode: entry.mode, target: entry.ref };
    } else {
      const file = readObject(sql, entry.ref, FileObjectSchema, where, sha256);
      const chunks = () => fileChunks(sql, file, where, sha256);
      yield { path, kind: "file", mode: entry.mode, object: entry.ref, size: file.size, chunks };
    }
  }
}

/** What differs between roots `a` and `b`, reading only the trees on changed paths. */
export function diffRoots(sql: SqlSeam, a: string, b: string, where = "the Workspace"): RootDiff {
  const diff: RootDiff = { added: [], removed: [], changed: [] };
  diffTrees(sql, a, b, "", diff, where);
  for (const list of [diff.added, diff.removed, diff.changed]) list.sort(compareUtf8);
  return diff;
}

/**
 * Pre-order entries of tree `hash`, without reading file contents. The walk
 * keeps its own stack of open directories rather than recursing, so a tree of
 * any depth (a rename can build one deeper than any path) can be read.
 */
function* walkTree(
  sql: SqlSeam,
  hash: string,
  prefix: string,
  where: string,
  sha256: Sha256 = sha256Hex,
): Generator<{ path: string; entry: TreeEntry }> {
  const open = [{ entries: treeEntries(sql, hash, where, sha256), next: 0, prefix }];
  while (open.length > 0) {
    const dir = open[open.length - 1];
    if (dir.next === dir.entries.length) {
      open.pop();
      continue;
    }
    const entry = dir.entries[dir.next++];
    const path = dir.prefix + entry.name;
    yield { path, entry };
    if (entry.kind === "dir") {
      const entries = treeEntries(sql, entry.ref, where, sha256);
      open.push({ entries, next: 0, prefix: `${path}/` });
    }
  }
}

function treeEntries(
  sql: SqlSeam,
  hash: string,
  where: string,
  sha256: Sha256 = sha256Hex,
): TreeEntry[] {
  return readObject(sql, hash, TreeObjectSchema, where, sha256).entries
    .map(([name, kind, mode, ref]) => ({ name, kind, mode, ref }));
}

function* fileChunks(
  sql: SqlSeam,
  file: FileObject,
  where: string,
  sha256: Sha256,
): Generator<Uint8Array> {
  let size = 0;
  for (const chunk of file.chunks) {
    const data = readChunk(sql, chunk, where, sha256);
    size += data.length;
    if (size > file.size) break;
    yield data;
  }
  if (size !== file.size) {
    throw new WorkflowDatabaseCorruptError(
      `Cannot read ${where}: a Workspace file's chunks do not add up to its size`,
    );
  }
}

/** Adds to `diff` what differs between trees `a` and `b`, pair by pair from a work list. */
function diffTrees(
  sql: SqlSeam,
  a: string,
  b: string,
  prefix: string,
  diff: RootDiff,
  where: string,
): void {
  const pending = [{ a, b, prefix }];
  for (let pair = pending.pop(); pair !== undefined; pair = pending.pop()) {
    if (pair.a === pair.b) continue;
    const left = treeEntries(sql, pair.a, where);
    const right = treeEntries(sql, pair.b, where);
    // Both lists are in tree order (checked when parsed), so one merge pass pairs them.
    let i = 0;
    let j = 0;
    while (i < left.length || j < right.length) {
      const order = i === left.length
        ? 1
        : j === right.length
        ? -1
        : compareUtf8(left[i].name, right[j].name);
      if (order < 0) {
        gone(sql, left[i++], pair.prefix, diff.removed, where);
        continue;
      }
      if (order > 0) {
        gone(sql, right[j++], pair.prefix, diff.added, where);
        continue;
      }
      const [x, y] = [left[i++], right[j++]];
      const path = pair.prefix + x.name;
      if (x.kind === "dir" && y.kind === "dir") {
        if (x.mode !== y.mode) diff.changed.push(path);
        pending.push({ a: x.ref, b: y.ref, prefix: `${path}/` });
      } else if (x.kind !== y.kind) {
        diff.changed.push(path);
        if (x.kind === "dir") descendants(sql, x.ref, `${path}/`, diff.removed, where);
        if (y.kind === "dir") descendants(sql, y.ref, `${path}/`, diff.added, where);
      } else if (x.mode !== y.mode || x.ref !== y.ref) {
        diff.changed.push(path);
      }
    }
  }
}

/** Lists an entry present on one side only, and everything under it. */
function gone(sql: SqlSeam, entry: TreeEntry, prefix: string, into: string[], where: string) {
  const path = prefix + entry.name;
  into.push(path);
  if (entry.kind === "dir") descendants(sql, entry.ref, `${path}/`, into, where);
}

function descendants(sql: SqlSeam, tree: string, prefix: string, into: string[], where: string) {
  for (const { path } of walkTree(sql, tree, prefix, where)) into.push(path);
}
