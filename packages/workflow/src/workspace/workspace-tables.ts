/**
 * The Workspace's tables: inodes, directory entries, content-addressed
 * chunks, and the immutable Merkle objects of published roots.
 *
 * Invariants:
 * - Inode 1 is the root directory; it always exists.
 * - A chunk is stored once however many files share it, and is at most
 *   1 MiB (Durable Object rows are capped at 2 MB).
 * - `ws_inode.hash` caches the object hash of a file or directory; NULL
 *   means dirty (changed since the last publication).
 * - Objects and roots are immutable and retained (no garbage collection in
 *   version 1). A tree object may be stored as a delta against another
 *   (`base`, `depth`: see `object-store.ts`); its hash is always that of its
 *   full text.
 *
 * @module
 */

/** Chunk size bound in bytes. */
export const CHUNK_SIZE = 1024 * 1024;

/** Workspace table definitions, in creation order. */
export const WORKSPACE_TABLES: readonly { name: string; sql: string }[] = [
  {
    name: "ws_chunk",
    sql: "CREATE TABLE ws_chunk (hash TEXT PRIMARY KEY, data BLOB NOT NULL) STRICT",
  },
  {
    name: "ws_inode",
    sql: "CREATE TABLE ws_inode (ino INTEGER PRIMARY KEY, kind TEXT NOT NULL, " +
      "mode INTEGER NOT NULL, size INTEGER NOT NULL, target TEXT, chunks TEXT, " +
      "nlink INTEGER NOT NULL, hash TEXT) STRICT",
  },
  {
    name: "ws_dirent",
    sql: "CREATE TABLE ws_dirent (parent INTEGER NOT NULL, name TEXT NOT NULL, " +
      "ino INTEGER NOT NULL, PRIMARY KEY (parent, name)) STRICT",
  },
  {
    name: "ws_object",
    sql: "CREATE TABLE ws_object (hash TEXT PRIMARY KEY, body TEXT NOT NULL, base TEXT, " +
      "depth INTEGER NOT NULL DEFAULT 0) STRICT",
  },
];

/** Index definitions created with the tables. */
export const WORKSPACE_INDEXES: readonly string[] = [
  "CREATE INDEX ws_dirent_ino ON ws_dirent (ino)",
];
