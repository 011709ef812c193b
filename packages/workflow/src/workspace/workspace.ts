/**
 * The Workspace: a run's POSIX-like filesystem stored in the run's database
 * over the SQL seam, so it runs unchanged on `node:sqlite` and in a Durable
 * Object.
 *
 * Invariants:
 * - Paths are absolute logical POSIX paths; `..` never climbs above `/`; no
 *   host path is ever stored.
 * - Every refusal is a `FileSystemError` with its POSIX code. A file write
 *   refuses before it writes anything (a caller may run it without a
 *   savepoint); callers run any other operation in a savepoint, so a refusal
 *   changes nothing.
 * - Every change marks the changed inode and its ancestors dirty, noting in
 *   each directory which entry changed, so publication rehashes only the
 *   directories on changed paths, and only their changed entries.
 * - Symlink targets are kept verbatim; resolution is bounded (ELOOP).
 * - A path given, a symlink target and the canonical path of anything looked
 *   up or created hold at most `MAX_PATH_BYTES`, each name `MAX_NAME_BYTES`
 *   (ENAMETOOLONG), so no path names an entry deeper than about 2,048 levels.
 *   Only `rename` can move a tree below that; every walk of a tree is
 *   iterative, so any depth stays readable.
 * - Every chunk inserted, content set, name created and symlink target
 *   stored is noted (`workspace-writes.ts`), so a live effect's new bytes
 *   and names pass the secret gate before it commits.
 *
 * @module
 */
import {
  FileSystemError,
  type FileSystemErrorCode,
  MAX_PATH_BYTES,
  pathLengthProblem,
  sha256Hex,
  utf8Length,
} from "@xmd/core/protocol";
import { WorkflowDatabaseCorruptError } from "../contracts/workflow-errors.ts";
import type { SqlRow, SqlSeam } from "../sql/sql-seam.ts";
import { noteChange } from "./publication-memory.ts";
import { noteChunk, noteContent, noteName, noteRemoval, noteTarget } from "./workspace-writes.ts";
import type { Sha256 } from "./root-format.ts";
import { CHUNK_SIZE, WORKSPACE_INDEXES, WORKSPACE_TABLES } from "./workspace-tables.ts";

/** What an inode is. */
export type InodeKind = "dir" | "file" | "symlink";

/** What `stat` reports. */
export interface WorkspaceStat {
  /** The inode number (not part of any root's identity). */
  ino: number;
  /** Directory, regular file or symlink. */
  kind: InodeKind;
  /** Permission bits (`0o755`…). */
  mode: number;
  /** Bytes (files), entries (directories) or target length (symlinks). */
  size: number;
  /** Hard links to it. */
  nlink: number;
}

/** The root directory's inode. */
export const ROOT_INO = 1;
const MAX_SYMLINK_HOPS = 40;

interface Located {
  /** The canonical path (no symlinks, `.` or `..`). */
  canonical: string;
  /** The directory holding the last component (null for `/`). */
  parent: number | null;
  /** The last component's name ("" for `/`). */
  name: string;
  /** The inode it names, or null when missing. */
  ino: number | null;
  /** That inode's kind and hard links, as its entry's lookup read them (null when missing). */
  kind: InodeKind | null;
  links: number;
  /**
   * The directories from the root to `parent` (empty for `/`), and the name
   * each is linked under in the one before it ("" for the root).
   */
  dirs: readonly number[];
  dirNames: readonly string[];
}

/** Deeper than this, a change marks its directories one statement at a time. */
const MAX_MARKED_AT_ONCE = 8;

/** Produces a file's contents by handing each chunk, in order, to `store`. */
type Fill = (store: (chunk: Uint8Array) => void) => void;

interface InodeRow {
  ino: number;
  kind: InodeKind;
  mode: number;
  size: number;
  target: string | null;
  chunks: string | null;
  nlink: number;
  hash: string | null;
}

/** How a Workspace is built. */
export interface WorkspaceOptions {
  /**
   * The SHA-256 chunks are named with: `sha256Hex` from `@xmd/core/protocol` unless a
   * runtime passes its native one (the names are the same).
   */
  sha256?: Sha256;
}

/** A filesystem over one run database's Workspace tables. */
export class Workspace {
  readonly #sql: SqlSeam;
  readonly #sha256: Sha256;

  /** A Workspace over tables created by {@linkcode Workspace.initialize}. */
  constructor(sql: SqlSeam, options: WorkspaceOptions = {}) {
    this.#sql = sql;
    this.#sha256 = options.sha256 ?? sha256Hex;
  }

  /** Creates the tables and the root directory (inside the caller's transaction). */
  static initialize(sql: SqlSeam): void {
    for (const table of WORKSPACE_TABLES) sql.exec(table.sql);
    for (const index of WORKSPACE_INDEXES) sql.exec(index);
    Workspace.createRoot(sql);
  }

  /** Creates the empty root directory in freshly created tables. */
  static createRoot(sql: SqlSeam): void {
    sql.exec(
      "INSERT INTO ws_inode (ino, kind, mode, size, target, chunks, nlink, hash) " +
        "VALUES (?, 'dir', ?, 0, NULL, NULL, 2, NULL)",
      ROOT_INO,
      0o755,
    );
  }

  /** The SQL seam (to run operations in savepoints and publish roots). */
  get sql(): SqlSeam {
    return this.#sql;
  }

  /** Metadata of `path`, following a final symlink. */
  stat(path: string): WorkspaceStat {
    return this.#statOf(this.#existing(path, true, "stat"));
  }

  /** Metadata of `path` itself (a symlink is reported as one). */
  lstat(path: string): WorkspaceStat {
    return this.#statOf(this.#existing(path, false, "stat"));
  }

  /** Whether `path` exists (following symlinks). */
  exists(path: string): boolean {
    try {
      return this.#locate(path, true).ino !== null;
    } catch (error) {
      if (error instanceof FileSystemError) return false;
      throw error;
    }
  }

  /** The bytes of a regular file. */
  readFile(path: string): Uint8Array {
    const inode = this.#inode(this.#existing(path, true, "read"));
    if (inode.kind === "dir") throw fsError("EISDIR", path, "read", "it is a directory");
    const chunks = parseChunks(inode.chunks);
    const out = new Uint8Array(inode.size);
    let offset = 0;
    for (const hash of chunks) {
      const data = this.#chunk(hash);
      out.set(data, offset);
      offset += data.length;
    }
    return out;
  }

  /** Writes a regular file (created with `mode` if missing; contents replaced if present). */
  writeFile(path: string, data: Uint8Array, options: { mode?: number } = {}): void {
    this.#write(path, options, (store) => {
      for (let offset = 0; offset < data.length; offset += CHUNK_SIZE) {
        store(data.subarray(offset, Math.min(offset + CHUNK_SIZE, data.length)));
      }
    });
  }

  /**
   * Writes a regular file as {@linkcode writeFile} does, its contents the
   * pieces of `source` in order, of any sizes. Each chunk is stored as soon as
   * its bytes have arrived, copied out of the pieces (so a source may reuse
   * its buffer), and the file is never held whole: the same chunks, inode and
   * root as `writeFile` of the pieces joined.
   */
  writeFileFrom(path: string, source: Iterable<Uint8Array>, options: { mode?: number } = {}): void {
    this.#write(path, options, (store) => {
      // One buffer for every chunk: each is hashed and bound (SQLite copies what it binds)
      // before the next is copied in.
      const buffer = new Uint8Array(CHUNK_SIZE);
      let filled = 0;
      for (const piece of source) {
        for (let at = 0; at < piece.length;) {
          const taken = Math.min(CHUNK_SIZE - filled, piece.length - at);
          buffer.set(piece.subarray(at, at + taken), filled);
          filled += taken;
          at += taken;
          if (filled === CHUNK_SIZE) {
            store(buffer);
            filled = 0;
          }
        }
      }
      if (filled > 0) store(buffer.subarray(0, filled));
    });
  }

  /** Sets the contents of the file at `path` (created if missing) to the chunks `fill` stores. */
  #write(path: string, options: { mode?: number }, fill: Fill): void {
    // The entry's lookup read the inode's kind and links: the write reads no inode row.
    const located = this.#locate(path, true);
    if (located.ino !== null) {
      if (located.kind === "dir") throw fsError("EISDIR", path, "write", "it is a directory");
      this.#setContent(located.ino, fill, located.canonical);
      // One name (no other hard link): its directories are the resolution's.
      if (located.links === 1) this.#changedAlong(located);
      else this.#markParentsDirty(located.ino);
      return;
    }
    const parent = this.#parentDir(located, path, "write");
    // Checked before anything is written: a write refuses before it writes (WS-29).
    checkName(located.name);
    const ino = this.#newInode("file", options.mode ?? 0o644, null);
    // Not linked yet, so no directory to mark: linking it marks its own.
    this.#setContent(ino, fill, located.canonical);
    this.#link(parent, located.name, ino, located);
  }

  /** Creates a directory; with `recursive`, its missing parents too, and no error if it exists. */
  mkdir(path: string, options: { recursive?: boolean; mode?: number } = {}): void {
    const mode = options.mode ?? 0o755;
    if (options.recursive) {
      // One resolution continued name by name, so a deep path costs its depth, not its square.
      const at = new Resolution();
      let current = "";
      for (const part of components(path, "mkdir")) {
        current += `/${part}`;
        const located = this.#resolve(at, [part], current, true);
        if (located.ino === null) {
          const ino = this.#mkdirAt(this.#parentDir(located, current, "mkdir"), located.name, mode);
          at.enter(ino, "dir", located.name, current, 2);
        } else if (this.#inode(located.ino).kind !== "dir") {
          throw fsError("ENOTDIR", current, "mkdir", "it is not a directory");
        }
      }
      return;
    }
    const located = this.#locate(path, false);
    if (located.ino !== null) throw fsError("EEXIST", path, "mkdir", "it already exists");
    this.#mkdirAt(this.#parentDir(located, path, "mkdir"), located.name, mode);
  }

  /** The names in a directory, sorted by UTF-8 bytes. */
  readdir(path: string): string[] {
    const ino = this.#existing(path, true, "list");
    if (this.#inode(ino).kind !== "dir") {
      throw fsError("ENOTDIR", path, "list", "it is not a directory");
    }
    return this.#sql.exec("SELECT name FROM ws_dirent WHERE parent = ?", ino)
      .map((row) => String(row.name)).sort(compareUtf8);
  }

  /** Removes a file or symlink (not a directory). */
  unlink(path: string): void {
    const located = this.#locate(path, false);
    if (located.ino === null) throw fsError("ENOENT", path, "remove", "no such file");
    if (this.#inode(located.ino).kind === "dir") {
      throw fsError("EISDIR", path, "remove", "it is a directory; remove it with rmdir");
    }
    this.#unlink(located.parent!, located.name, located.ino);
  }

  /** Removes an empty directory. */
  rmdir(path: string): void {
    const located = this.#locate(path, false);
    if (located.ino === null) throw fsError("ENOENT", path, "remove", "no such directory");
    if (located.parent === null) throw fsError("EINVAL", path, "remove", "it is the root");
    if (this.#inode(located.ino).kind !== "dir") {
      throw fsError("ENOTDIR", path, "remove", "it is not a directory");
    }
    if (this.#sql.exec("SELECT 1 FROM ws_dirent WHERE parent = ? LIMIT 1", located.ino).length) {
      throw fsError("ENOTEMPTY", path, "remove", "the directory is not empty");
    }
    this.#unlink(located.parent, located.name, located.ino);
  }

  /** Renames `from` to `to`, replacing a compatible `to` as POSIX rename does. */
  rename(from: string, to: string): void {
    const source = this.#locate(from, false);
    if (source.ino === null) throw fsError("ENOENT", from, "rename", "no such file or directory");
    if (source.parent === null) throw fsError("EINVAL", from, "rename", "it is the root");
    const target = this.#locate(to, false);
    const targetParent = this.#parentDir(target, to, "rename");
    const kind = this.#inode(source.ino).kind;
    if (kind === "dir" && this.#isWithin(targetParent, source.ino)) {
      throw fsError("EINVAL", to, "rename", "a directory cannot move into itself");
    }
    if (target.ino !== null) {
      if (target.ino === source.ino) return;
      const existing = this.#inode(target.ino);
      if (existing.kind === "dir") {
        if (kind !== "dir") throw fsError("EISDIR", to, "rename", "it is a directory");
        if (this.#sql.exec("SELECT 1 FROM ws_dirent WHERE parent = ? LIMIT 1", target.ino).length) {
          throw fsError("ENOTEMPTY", to, "rename", "the directory is not empty");
        }
      } else if (kind === "dir") {
        throw fsError("ENOTDIR", to, "rename", "it is not a directory");
      }
      this.#unlink(targetParent, target.name, target.ino);
    }
    this.#sql.exec(
      "DELETE FROM ws_dirent WHERE parent = ? AND name = ?",
      source.parent,
      source.name,
    );
    noteRemoval(this.#sql);
    this.#changed(source.parent, source.name);
    if (kind === "dir") this.#adjustLinks(source.parent, -1);
    this.#link(targetParent, target.name, source.ino);
  }

  /** Creates a symlink at `path` whose target is kept verbatim. */
  symlink(target: string, path: string): void {
    if (target === "" || target.includes("\0")) {
      throw fsError("EINVAL", path, "link", "the target is empty or holds a NUL byte");
    }
    const tooLong = pathLengthProblem(target);
    if (tooLong !== undefined) throw tooLongError(path, "link", `the target: ${tooLong}`);
    const located = this.#locate(path, false);
    if (located.ino !== null) throw fsError("EEXIST", path, "link", "it already exists");
    const parent = this.#parentDir(located, path, "link");
    const ino = this.#newInode("symlink", 0o777, target);
    noteTarget(this.#sql, ino, target);
    this.#link(parent, located.name, ino);
  }

  /** The canonical absolute path of an existing `path` (symlinks, `.` and `..` resolved). */
  realpath(path: string): string {
    const located = this.#locate(path, true);
    if (located.ino === null) throw fsError("ENOENT", path, "resolve", "no such file or directory");
    return located.canonical;
  }

  /** The verbatim target of a symlink. */
  readlink(path: string): string {
    const inode = this.#inode(this.#existing(path, false, "read link"));
    if (inode.kind !== "symlink") throw fsError("EINVAL", path, "read link", "it is not a symlink");
    return inode.target!;
  }

  /** Adds a hard link `path` to the file `existing`. */
  link(existing: string, path: string): void {
    const ino = this.#existing(existing, false, "link");
    if (this.#inode(ino).kind === "dir") {
      throw fsError("EPERM", existing, "link", "directories cannot be hard-linked");
    }
    const located = this.#locate(path, false);
    if (located.ino !== null) throw fsError("EEXIST", path, "link", "it already exists");
    this.#link(this.#parentDir(located, path, "link"), located.name, ino);
    this.#sql.exec("UPDATE ws_inode SET nlink = nlink + 1 WHERE ino = ?", ino);
  }

  /** Changes permission bits. */
  chmod(path: string, mode: number): void {
    if (!Number.isInteger(mode) || mode < 0 || mode > 0o7777) {
      throw fsError("EINVAL", path, "chmod", "the mode is out of range");
    }
    const ino = this.#existing(path, true, "chmod");
    this.#sql.exec("UPDATE ws_inode SET mode = ?, hash = NULL WHERE ino = ?", mode, ino);
    this.#markParentsDirty(ino);
  }

  // ---- internals

  #statOf(ino: number): WorkspaceStat {
    const inode = this.#inode(ino);
    return { ino, kind: inode.kind, mode: inode.mode, size: inode.size, nlink: inode.nlink };
  }

  #existing(path: string, follow: boolean, action: string): number {
    const located = this.#locate(path, follow);
    if (located.ino === null) throw fsError("ENOENT", path, action, "no such file or directory");
    return located.ino;
  }

  #parentDir(located: Located, path: string, action: string): number {
    if (located.parent === null) throw fsError("EEXIST", path, action, "it is the root");
    return located.parent;
  }

  /** Resolves `path`: the inode it names (or null), its directory and its last name. */
  #locate(path: string, followLast: boolean): Located {
    return this.#resolve(new Resolution(), components(path, "resolve"), path, followLast);
  }

  /**
   * Continues resolution `at` through the names in `queue`; `path` is what
   * errors name. A missing last name is returned with a null inode and leaves
   * `at` on its directory; anything found is entered.
   */
  #resolve(at: Resolution, queue: string[], path: string, followLast: boolean): Located {
    while (queue.length > 0) {
      const part = queue.shift()!;
      if (part === ".") continue;
      if (part === "..") {
        at.leave();
        continue;
      }
      const dir = at.top;
      if (at.kinds[at.kinds.length - 1] !== "dir") {
        throw fsError("ENOTDIR", path, "resolve", "a component is not a directory");
      }
      // The entry and its inode in one statement: a path costs one lookup per component.
      const row = this.#sql.exec(
        "SELECT d.ino, i.kind, i.target, i.nlink FROM ws_dirent d " +
          "LEFT JOIN ws_inode i ON i.ino = d.ino WHERE d.parent = ? AND d.name = ?",
        dir,
        part,
      )[0];
      if (!row) {
        if (queue.length === 0) return at.missing(part, path);
        throw fsError("ENOENT", path, "resolve", "a directory on the way does not exist");
      }
      const ino = Number(row.ino);
      if (row.kind === null) {
        throw new WorkflowDatabaseCorruptError(
          `Cannot read the Workspace: inode ${ino} is missing`,
        );
      }
      const inode = row as unknown as Pick<InodeRow, "kind" | "target" | "nlink">;
      if (inode.kind === "symlink" && (queue.length > 0 || followLast)) {
        if (++at.hops > MAX_SYMLINK_HOPS) {
          throw fsError("ELOOP", path, "resolve", "too many levels of symbolic links");
        }
        const target = inode.target!;
        // An absolute target starts again from the root.
        if (target.startsWith("/")) at.restart();
        queue.unshift(...target.split("/").filter((segment) => segment !== ""));
        continue;
      }
      at.enter(ino, inode.kind, part, path, Number(inode.nlink));
    }
    return at.located();
  }

  #inode(ino: number): InodeRow {
    const row = this.#sql.exec("SELECT * FROM ws_inode WHERE ino = ?", ino)[0];
    if (!row) {
      throw new WorkflowDatabaseCorruptError(`Cannot read the Workspace: inode ${ino} is missing`);
    }
    return row as unknown as InodeRow;
  }

  #chunk(hash: string): Uint8Array {
    const row = this.#sql.exec("SELECT data FROM ws_chunk WHERE hash = ?", hash)[0];
    if (!row) {
      throw new WorkflowDatabaseCorruptError(
        `Cannot read the Workspace: chunk ${hash.slice(0, 12)} is missing`,
      );
    }
    return row.data as Uint8Array;
  }

  #newInode(kind: InodeKind, mode: number, target: string | null): number {
    const [row] = this.#sql.exec(
      "INSERT INTO ws_inode (kind, mode, size, target, chunks, nlink, hash) " +
        "VALUES (?, ?, ?, ?, NULL, ?, NULL) RETURNING ino",
      kind,
      mode,
      target === null ? 0 : new TextEncoder().encode(target).length,
      target,
      kind === "dir" ? 2 : 1,
    );
    return Number(row.ino);
  }

  #mkdirAt(parent: number, name: string, mode: number): number {
    const ino = this.#newInode("dir", mode, null);
    this.#link(parent, name, ino);
    this.#adjustLinks(parent, 1);
    return ino;
  }

  /**
   * Gives `ino` the chunks `fill` stores, in order (each a full `CHUNK_SIZE`
   * but the last); the caller marks its directories.
   */
  #setContent(ino: number, fill: Fill, path: string): void {
    const hashes: string[] = [];
    let size = 0;
    fill((chunk) => {
      const hash = this.#sha256(chunk);
      const inserted = this.#sql.exec(
        "INSERT OR IGNORE INTO ws_chunk (hash, data) VALUES (?, ?) RETURNING hash",
        hash,
        chunk,
      );
      if (inserted.length > 0) noteChunk(this.#sql, hash, chunk);
      hashes.push(hash);
      size += chunk.length;
    });
    noteContent(this.#sql, path, hashes);
    this.#sql.exec(
      "UPDATE ws_inode SET size = ?, chunks = ?, hash = NULL WHERE ino = ?",
      size,
      JSON.stringify(hashes),
      ino,
    );
  }

  /** Links `ino` as `name` in `parent`; `along`, when given, is `name`'s resolution in `parent`. */
  #link(parent: number, name: string, ino: number, along?: Located): void {
    checkName(name);
    this.#sql.exec("INSERT INTO ws_dirent (parent, name, ino) VALUES (?, ?, ?)", parent, name, ino);
    noteName(this.#sql, parent, name);
    if (along) this.#changedAlong(along);
    else this.#changed(parent, name);
  }

  #unlink(parent: number, name: string, ino: number): void {
    const kind = this.#inode(ino).kind;
    this.#sql.exec("DELETE FROM ws_dirent WHERE parent = ? AND name = ?", parent, name);
    noteRemoval(this.#sql);
    this.#changed(parent, name);
    if (kind === "dir") {
      this.#adjustLinks(parent, -1);
      this.#sql.exec("DELETE FROM ws_inode WHERE ino = ?", ino);
      return;
    }
    this.#sql.exec("UPDATE ws_inode SET nlink = nlink - 1 WHERE ino = ?", ino);
    this.#sql.exec("DELETE FROM ws_inode WHERE ino = ? AND nlink <= 0", ino);
  }

  #adjustLinks(dir: number, delta: number): void {
    this.#sql.exec("UPDATE ws_inode SET nlink = nlink + ? WHERE ino = ?", delta, dir);
  }

  #isWithin(dir: number, ancestor: number): boolean {
    for (let current: number | undefined = dir; current !== undefined;) {
      if (current === ancestor) return true;
      if (current === ROOT_INO) return false;
      const row: SqlRow | undefined = this.#sql.exec(
        "SELECT parent FROM ws_dirent WHERE ino = ? LIMIT 1",
        current,
      )[0];
      current = row ? Number(row.parent) : undefined;
    }
    return false;
  }

  /**
   * Records that entry `name` of directory `dir` changed: marks `dir` and its
   * ancestors dirty, stopping after one already dirty, and notes in each the
   * name of the entry that changed in it.
   */
  #changed(dir: number, name: string): void {
    let current = dir;
    let entry = name;
    for (;;) {
      // Its hash and the entry naming it, in one statement (a directory has one entry).
      const row: SqlRow | undefined = this.#sql.exec(
        "SELECT i.hash, d.parent, d.name FROM ws_inode i LEFT JOIN ws_dirent d ON d.ino = i.ino " +
          "WHERE i.ino = ? LIMIT 1",
        current,
      )[0];
      const base = typeof row?.hash === "string" ? row.hash : null;
      noteChange(this.#sql, current, entry, base);
      if (base === null) return;
      this.#sql.exec("UPDATE ws_inode SET hash = NULL WHERE ino = ?", current);
      if (current === ROOT_INO || row?.parent === null || row?.parent === undefined) return;
      current = Number(row.parent);
      entry = String(row.name);
    }
  }

  /**
   * Records, as `#changed(located.parent, located.name)` does, that the
   * entry `located` names changed, reading the hashes of the directories
   * above it in one statement and marking them in another: the resolution
   * has found them already, each with the name it is linked under.
   */
  #changedAlong(located: Located): void {
    const { dirs, dirNames } = located;
    if (dirs.length === 0) return;
    if (dirs.length > MAX_MARKED_AT_ONCE) return this.#changed(dirs[dirs.length - 1], located.name);
    const hashes = new Map<number, string>();
    for (
      const row of this.#sql.exec(
        `SELECT ino, hash FROM ws_inode WHERE ino IN (${SLOTS[dirs.length]})`,
        ...dirs,
      )
    ) {
      if (typeof row.hash === "string") hashes.set(Number(row.ino), row.hash);
    }
    const marked: number[] = [];
    for (let i = dirs.length - 1; i >= 0; i--) {
      const base = hashes.get(dirs[i]) ?? null;
      noteChange(this.#sql, dirs[i], i === dirs.length - 1 ? located.name : dirNames[i + 1], base);
      // Above a directory already dirty, every one is (a change marks all of them).
      if (base === null) break;
      marked.push(dirs[i]);
    }
    if (marked.length === 0) return;
    this.#sql.exec(
      `UPDATE ws_inode SET hash = NULL WHERE ino IN (${SLOTS[marked.length]})`,
      ...marked,
    );
  }

  /** Marks every directory holding `ino` (hard links included) dirty. */
  #markParentsDirty(ino: number): void {
    for (const row of this.#sql.exec("SELECT parent, name FROM ws_dirent WHERE ino = ?", ino)) {
      this.#changed(Number(row.parent), String(row.name));
    }
  }
}

/**
 * Where a path resolution stands: the directories entered from the root, their
 * kinds (read with their entries) and names, and the UTF-8
 * length of the canonical path they spell, which never exceeds `MAX_PATH_BYTES`.
 */
class Resolution {
  readonly stack: number[] = [ROOT_INO];
  /** The root is a directory (inode 1 always is; a damaged one fails its publication). */
  readonly kinds: InodeKind[] = ["dir"];
  /** Hard links of each (a directory's are not read: it has one name). */
  readonly links: number[] = [1];
  readonly names: string[] = [""];
  /** Symlinks followed so far. */
  hops = 0;
  readonly #lengths: number[] = [0];
  #bytes = 0;

  /** The directory the next name is looked up in. */
  get top(): number {
    return this.stack[this.stack.length - 1];
  }

  enter(ino: number, kind: InodeKind, name: string, path: string, links: number): void {
    const length = this.#fit(name, path);
    this.stack.push(ino);
    this.kinds.push(kind);
    this.links.push(links);
    this.names.push(name);
    this.#lengths.push(length);
    this.#bytes += length;
  }

  /** `..`, which stops at the root. */
  leave(): void {
    if (this.stack.length === 1) return;
    this.stack.pop();
    this.kinds.pop();
    this.links.pop();
    this.names.pop();
    this.#bytes -= this.#lengths.pop()!;
  }

  restart(): void {
    for (const list of [this.stack, this.kinds, this.links, this.names, this.#lengths]) {
      list.length = 1;
    }
    this.#bytes = 0;
  }

  /** Where it stands. */
  located(): Located {
    const depth = this.stack.length;
    return {
      canonical: this.names.join("/") || "/",
      parent: depth > 1 ? this.stack[depth - 2] : null,
      name: this.names[depth - 1],
      ino: this.top,
      kind: this.kinds[depth - 1],
      links: this.links[depth - 1],
      dirs: this.stack.slice(0, depth - 1),
      dirNames: this.names.slice(0, depth - 1),
    };
  }

  /** A name missing from the top directory (which could be created there). */
  missing(name: string, path: string): Located {
    this.#fit(name, path);
    return {
      canonical: [...this.names, name].join("/"),
      parent: this.top,
      name,
      ino: null,
      kind: null,
      links: 0,
      dirs: [...this.stack],
      dirNames: [...this.names],
    };
  }

  /** What `/name` adds to the canonical path; ENAMETOOLONG when that would be too long. */
  #fit(name: string, path: string): number {
    const length = utf8Length(name) + 1;
    if (this.#bytes + length > MAX_PATH_BYTES) {
      throw tooLongError(
        path,
        "resolve",
        `its resolved path is longer than ${MAX_PATH_BYTES} bytes`,
      );
    }
    return length;
  }
}

/** `SLOTS[n]`: `n` positional parameters (`?, ?, ?`), up to `MAX_MARKED_AT_ONCE`. */
const SLOTS = Array.from(
  { length: MAX_MARKED_AT_ONCE + 1 },
  (_, n) => Array(n).fill("?").join(", "),
);

function components(path: string, action: string): string[] {
  if (!path.startsWith("/")) {
    throw fsError("EINVAL", path, action, "Workspace paths are absolute");
  }
  if (path.includes("\0")) throw fsError("EINVAL", path, action, "the path holds a NUL byte");
  const tooLong = pathLengthProblem(path);
  if (tooLong !== undefined) throw tooLongError(path, action, tooLong);
  return path.split("/").filter((part) => part !== "");
}

/** Refuses a name no directory entry may have (EINVAL). */
function checkName(name: string): void {
  if (name === "" || name === "." || name === ".." || name.includes("/") || name.includes("\0")) {
    throw fsError("EINVAL", name, "create", "the name is not a valid file name");
  }
}

/** ENAMETOOLONG, whose message leaves out the path: it is the part that is too long. */
function tooLongError(path: string, action: string, why: string): FileSystemError {
  return new FileSystemError(
    "ENAMETOOLONG",
    path,
    `Cannot ${action} a path: ${why} (ENAMETOOLONG)`,
  );
}

function parseChunks(text: string | null): string[] {
  return text === null ? [] : JSON.parse(text) as string[];
}

function fsError(
  code: FileSystemErrorCode,
  path: string,
  action: string,
  why: string,
): FileSystemError {
  return new FileSystemError(code, path, `Cannot ${action} "${path}": ${why} (${code})`);
}

/**
 * Orders strings by their UTF-8 bytes (root format 1's entry order) without
 * encoding them: UTF-8 byte order is code point order, which differs from
 * UTF-16 code unit order only where surrogates (code points above U+FFFF)
 * meet U+E000–U+FFFF, so those units are shifted before comparing.
 */
export function compareUtf8(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

function codePointRank(unit: number): number {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000;
  if (unit >= 0xe000) return unit - 0x800;
  return unit;
}
