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
import { canonicalJson, type JsonValue, Sha256Hasher, sha256Hex } from "@xmd/core/protocol";
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
 * bytes. The Workspace defaults to `portableSha256` (JavaScript, runs
 * anywhere); a runtime may pass its native one, which names every object the
 * same. One that can also hash in parts and copy its state (`begin`) lets
 * publication rehash a changed tree from before its first change only
 * (`tree-hash.ts`); one without is called on whole texts.
 */
export type Sha256 = ((data: string | Uint8Array) => string) & {
  /** A state with nothing hashed yet. */
  readonly begin?: () => Sha256State;
};

/**
 * A SHA-256 in progress. Its digest of the parts given equals the one-shot
 * hash of their concatenation, provided no string part ends between the two
 * halves of a surrogate pair (each part is encoded to UTF-8 alone).
 */
export interface Sha256State {
  /** Adds `text`'s UTF-8 bytes. */
  update(text: string): void;
  /** An independent state equal to this one. */
  copy(): Sha256State;
  /** The digest as lowercase hex; the state is not used again after it. */
  hex(): string;
}

/** The portable SHA-256 (`sha256Hex`), with states that can be copied. */
export const portableSha256: Sha256 = Object.assign(
  (data: string | Uint8Array) => sha256Hex(data),
  { begin: (): Sha256State => new Sha256Hasher() },
);

/** An object's hash. */
export function objectHash(text: string, sha256: Sha256 = portableSha256): string {
  return sha256(text);
}
