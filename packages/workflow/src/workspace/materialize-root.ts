/**
 * Materialization: the live Workspace tables (`ws_inode`, `ws_dirent`)
 * rebuilt from a retained root whose objects and chunks are in the database,
 * plus the hard-link groups root format 1 cannot hold. A host that received a
 * root (a runner acquiring a remote run) continues from it exactly as if it
 * had written it.
 *
 * Invariants:
 * - One transaction over the SQL seam (a savepoint when the caller holds
 *   one): on any refusal nothing changes.
 * - Everything built upon is checked as it is read: each object exists,
 *   hashes to its name, parses strictly as root format 1 and is its
 *   canonical text (so the live tables rehash to the very same ids); each
 *   chunk exists, hashes to its name, and a file's chunks add up to its
 *   size; a symlink target holds no NUL; the hard-link groups fit the root.
 *   A failure is `WorkflowDatabaseCorruptError`, naming no content or path.
 * - Afterwards `liveRootOf` is the root and every file and directory inode
 *   caches its object hash, so nothing is dirty and the next publication
 *   rehashes only what changes after. `run.root` is the caller's.
 * - Iterative (a stack of pending directories, no recursion over depth).
 *   Chunks are referenced by the inodes, never copied; file contents are
 *   never held: a chunk is read once for its hash and dropped. Memory follows
 *   the pending directories, the hashes of the chunks checked, and the groups.
 *
 * @module
 */
import { type Schema, sha256Hex } from "@xmd/core/protocol";
import { WorkflowDatabaseCorruptError } from "../contracts/workflow-errors.ts";
import type { SqlSeam } from "../sql/sql-seam.ts";
import { type HardLinkGroups, HardLinkGroupsSchema } from "./hard-links.ts";
import { readObjectText } from "./object-store.ts";
import { forgetChanges } from "./publication-memory.ts";
import { noteRemoval } from "./workspace-writes.ts";
import { fileObject, type Sha256, treeObjectOf } from "./root-format.ts";
import {
  type FileObject,
  FileObjectSchema,
  type TreeObject,
  TreeObjectSchema,
} from "./verify-root.ts";
import { ROOT_INO } from "./workspace.ts";

/** A directory whose inode is numbered and named, its entries not yet built. */
interface PendingDirectory {
  ino: number;
  tree: string;
  mode: number;
  /** Its relative path and a `/`, or "" for the root. */
  prefix: string;
}

/** A hard-link group as the walk meets its names. */
interface Group {
  size: number;
  seen: number;
  /** The inode of its first name met, and that name's entry. */
  first?: { ino: number; kind: string; mode: number; ref: string };
}

/** What one materialization reads with and reports to. */
interface Materialization {
  sql: SqlSeam;
  sha256: Sha256;
  where: string;
  /** Chunks already found sound. */
  checked: Set<string>;
  damaged(what: string): WorkflowDatabaseCorruptError;
}

/**
 * Replaces the live Workspace with root `root` (within one transaction of
 * `sql`), the paths of each of `links` sharing one inode. `where` names the
 * run for errors; `sha256` checks chunks (any SHA-256 implementation).
 * Call `publicationCommitted` after the outermost commit, as after any
 * Workspace change, so that later publications rebuild from these trees.
 */
export function materializeRoot(
  sql: SqlSeam,
  root: string,
  links: HardLinkGroups,
  where: string,
  sha256: Sha256 = sha256Hex,
): void {
  const run: Materialization = {
    sql,
    sha256,
    where,
    checked: new Set(),
    damaged: (what) =>
      new WorkflowDatabaseCorruptError(
        `Cannot materialize root ${root.slice(0, 12)} of ${where}: ${what}. Nothing was changed`,
      ),
  };
  const parsed = HardLinkGroupsSchema.safeParse(links);
  if (!parsed.success) throw run.damaged("its hard-link groups are malformed");
  const groups = new Map<string, Group>();
  for (const paths of parsed.data) {
    const group: Group = { size: paths.length, seen: 0 };
    for (const path of paths) groups.set(path, group);
  }
  sql.transaction(() => {
    // Changes remembered for the inode numbers being replaced would be stale.
    forgetChanges(sql);
    // A write noted before (in a held effect) may be gone.
    noteRemoval(sql);
    sql.exec("DELETE FROM ws_dirent");
    sql.exec("DELETE FROM ws_inode");
    const stack: PendingDirectory[] = [{ ino: ROOT_INO, tree: root, mode: 0o755, prefix: "" }];
    let next = ROOT_INO + 1;
    while (stack.length > 0) {
      const dir = stack.pop()!;
      const tree = readCanonical(run, dir.tree, TreeObjectSchema, treeText);
      let subdirectories = 0;
      for (const [name, kind, mode, ref] of tree.entries) {
        const path = dir.prefix + name;
        const group = groups.get(path);
        let ino: number;
        if (kind === "dir") {
          if (group) throw run.damaged("a hard-link group names a directory");
          ino = next++;
          subdirectories++;
          stack.push({ ino, tree: ref, mode, prefix: `${path}/` });
        } else if (group?.first) {
          const first = group.first;
          if (first.kind !== kind || first.mode !== mode || first.ref !== ref) {
            throw run.damaged("a hard-link group names entries that differ");
          }
          ino = first.ino;
        } else {
          ino = next++;
          const nlink = group?.size ?? 1;
          if (kind === "file") insertFile(run, ino, mode, ref, nlink);
          else insertSymlink(run, ino, mode, ref, nlink);
          if (group) group.first = { ino, kind, mode, ref };
        }
        if (group) group.seen++;
        sql.exec("INSERT INTO ws_dirent (parent, name, ino) VALUES (?, ?, ?)", dir.ino, name, ino);
      }
      sql.exec(
        "INSERT INTO ws_inode (ino, kind, mode, size, target, chunks, nlink, hash) " +
          "VALUES (?, 'dir', ?, 0, NULL, NULL, ?, ?)",
        dir.ino,
        dir.mode,
        2 + subdirectories,
        dir.tree,
      );
    }
    for (const group of groups.values()) {
      if (group.seen !== group.size) throw run.damaged("a hard-link group names a path it lacks");
    }
  });
}

function insertFile(run: Materialization, ino: number, mode: number, hash: string, nlink: number) {
  const file = readCanonical(run, hash, FileObjectSchema, fileText);
  let size = 0;
  for (const chunk of file.chunks) {
    const row = run.sql.exec("SELECT data FROM ws_chunk WHERE hash = ?", chunk)[0];
    const name = `chunk ${chunk.slice(0, 12)}`;
    if (row === undefined) throw run.damaged(`${name} is missing`);
    if (!(row.data instanceof Uint8Array)) throw run.damaged(`${name} is malformed`);
    size += row.data.length;
    if (!run.checked.has(chunk)) {
      if (run.sha256(row.data) !== chunk) throw run.damaged(`${name} does not match its hash`);
      run.checked.add(chunk);
    }
  }
  if (size !== file.size) {
    throw run.damaged(`the chunks of file object ${hash.slice(0, 12)} do not add up to its size`);
  }
  run.sql.exec(
    "INSERT INTO ws_inode (ino, kind, mode, size, target, chunks, nlink, hash) " +
      "VALUES (?, 'file', ?, ?, NULL, ?, ?, ?)",
    ino,
    mode,
    file.size,
    JSON.stringify(file.chunks),
    nlink,
    hash,
  );
}

function insertSymlink(
  run: Materialization,
  ino: number,
  mode: number,
  target: string,
  nlink: number,
) {
  if (target.includes("\0")) throw run.damaged("a symlink target holds a NUL byte");
  run.sql.exec(
    "INSERT INTO ws_inode (ino, kind, mode, size, target, chunks, nlink, hash) " +
      "VALUES (?, 'symlink', ?, ?, ?, NULL, ?, NULL)",
    ino,
    mode,
    new TextEncoder().encode(target).length,
    target,
    nlink,
  );
}

/**
 * Object `hash` (the object store checks its text against its hash), parsed
 * with `schema`, which must be exactly the canonical text `render` writes.
 */
function readCanonical<T>(
  run: Materialization,
  hash: string,
  schema: Schema<T>,
  render: (value: T) => string,
): T {
  const text = readObjectText(run.sql, hash, run.where, run.sha256);
  if (text === undefined) throw run.damaged(`object ${hash.slice(0, 12)} is missing`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success || render(parsed.data) !== text) {
    throw run.damaged(`object ${hash.slice(0, 12)} is malformed`);
  }
  return parsed.data;
}

function treeText(tree: TreeObject): string {
  return treeObjectOf(`[${tree.entries.map((entry) => JSON.stringify(entry)).join(",")}]`);
}

function fileText(file: FileObject): string {
  return fileObject(file.size, file.chunks);
}
