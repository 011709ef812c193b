/**
 * Root publication: hashes the dirty part of the Workspace bottom-up into
 * immutable objects and returns the root id. Clean inodes keep their cached
 * hash, so the cost follows the directories on changed paths, not the size
 * of the Workspace.
 *
 * @module
 */
import type { SqlSeam } from "../sql/sql-seam.ts";
import { fileObject, objectHash, type TreeEntry, treeObject } from "./root-format.ts";
import { type InodeKind, ROOT_INO } from "./workspace.ts";

/** Publishes the current Workspace state and returns its root id (within the caller's transaction). */
export function publishRoot(sql: SqlSeam): string {
  return hashOf(sql, ROOT_INO);
}

/** Forgets every cached hash, so the next publication rehashes everything (for measurements). */
export function forgetHashes(sql: SqlSeam): void {
  sql.exec("UPDATE ws_inode SET hash = NULL");
}

function store(sql: SqlSeam, ino: number, text: string): string {
  const hash = objectHash(text);
  sql.exec("INSERT OR IGNORE INTO ws_object (hash, body) VALUES (?, ?)", hash, text);
  sql.exec("UPDATE ws_inode SET hash = ? WHERE ino = ?", hash, ino);
  return hash;
}

function hashOf(sql: SqlSeam, ino: number): string {
  const row = sql.exec("SELECT kind, size, chunks, hash FROM ws_inode WHERE ino = ?", ino)[0];
  if (row.hash !== null) return String(row.hash);
  if (row.kind === "file") {
    const chunks = row.chunks === null ? [] : JSON.parse(String(row.chunks)) as string[];
    return store(sql, ino, fileObject(Number(row.size), chunks));
  }
  const entries: TreeEntry[] = sql.exec(
    "SELECT d.name, i.ino, i.kind, i.mode, i.hash, i.target FROM ws_dirent d " +
      "JOIN ws_inode i ON i.ino = d.ino WHERE d.parent = ?",
    ino,
  ).map((child) => ({
    name: String(child.name),
    kind: child.kind as InodeKind,
    mode: Number(child.mode),
    ref: child.kind === "symlink"
      ? String(child.target)
      : child.hash !== null
      ? String(child.hash)
      : hashOf(sql, Number(child.ino)),
  }));
  return store(sql, ino, treeObject(entries));
}
