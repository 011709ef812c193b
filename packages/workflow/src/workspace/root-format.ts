/**
 * Root format 1: the canonical Merkle objects a Workspace root is made of.
 *
 * - A file object is the canonical JSON `{"chunks":[<sha256 hex>…],"format":1,"size":<n>}`:
 *   the SHA-256 of each ≤ 1 MiB chunk of its bytes, in order, and its length.
 * - A tree object is the canonical JSON `{"entries":[[name, kind, mode, ref]…],"format":1}`
 *   with entries sorted by the UTF-8 bytes of their names; `kind` is `dir`, `file` or
 *   `symlink`; `mode` the permission bits as a number; `ref` the object hash of a file or
 *   directory, or a symlink's target verbatim.
 * - An object's hash is the lowercase hex SHA-256 of its UTF-8 text. The root id is the hash
 *   of the root directory's tree object. Inode numbers, link counts and times are not part of
 *   any object.
 *
 * @module
 */
import { canonicalJson, type JsonValue, sha256Hex } from "@xmd/core/protocol";
import { compareUtf8, type InodeKind } from "./workspace.ts";

/** The root format this code writes and reads. */
export const ROOT_FORMAT = 1;

/** One tree entry. */
export interface TreeEntry {
  /** The entry's name. */
  name: string;
  /** What it is. */
  kind: InodeKind;
  /** Permission bits. */
  mode: number;
  /** Object hash (file, dir) or symlink target. */
  ref: string;
}

/** The text of a file object. */
export function fileObject(size: number, chunks: readonly string[]): string {
  return canonicalJson({ chunks: [...chunks], format: ROOT_FORMAT, size });
}

/** The text of a tree object (entries are sorted here): the reference encoding. */
export function treeObject(entries: readonly TreeEntry[]): string {
  const sorted = [...entries].sort((a, b) => compareUtf8(a.name, b.name));
  const rows: JsonValue[] = sorted.map((entry) => [entry.name, entry.kind, entry.mode, entry.ref]);
  return canonicalJson({ entries: rows, format: ROOT_FORMAT });
}

/** The text of a tree object whose entries are given as their canonical, sorted JSON array. */
export function treeObjectOf(entries: string): string {
  return `{"entries":${entries},"format":${ROOT_FORMAT}}`;
}

/**
 * A synchronous SHA-256 as lowercase hex, of a string's UTF-8 bytes or of
 * bytes. The Workspace defaults to `sha256Hex` (JavaScript, runs anywhere);
 * a runtime may pass its native one, which names every object the same.
 */
export type Sha256 = (data: string | Uint8Array) => string;

/** An object's hash. */
export function objectHash(text: string, sha256: Sha256 = sha256Hex): string {
  return sha256(text);
}
