/**
 * What publication remembers on one connection, so that a changed directory's
 * tree object is rebuilt from its previous one instead of from every entry:
 * the directories changed since the last commit, each with the hash it had
 * when it was last clean (its base) and every name changed in it since, and
 * recently built trees by hash, each with its text and its history (which
 * earlier trees its skip-delta chain passes through, `skip-deltas.ts`).
 *
 * Invariants:
 * - Changes are recorded only after a commit that left the whole Workspace
 *   published (`committed`): no savepoint can roll back past it, and every
 *   inode was clean then, so a directory's live entries are always its base
 *   tree's with at most the recorded names changed, whatever rolled back
 *   since. A record only grows until the next commit.
 * - A directory changed while dirty without a record, or with too many
 *   names, is `unknown`: publication rebuilds it from all its entries.
 * - The connection is the only writer of its Workspace tables (the executor
 *   lock; a Durable Object's single thread).
 * - Trees are content-addressed, so a remembered tree is never stale; one
 *   forgotten is read back from storage (`publish-root.ts`).
 *
 * @module
 */
import type { SqlSeam } from "../sql/sql-seam.ts";
import type { TreeHistory } from "./skip-deltas.ts";
import type { HashCheckpoint } from "./tree-hash.ts";
import type { TreeText } from "./tree-text.ts";

/** A tree object's entries, sorted by UTF-8 name, as text, with its history. */
export interface SortedTree extends TreeText {
  /** Which trees its delta chain passes through. */
  readonly history: TreeHistory;
  /** Hash states saved while its text was hashed (none for a tree read from storage). */
  readonly checkpoints?: readonly HashCheckpoint[];
}

/** A directory's changes since it was last clean. */
export interface DirectoryChanges {
  /** Its hash when last clean. */
  readonly base: string;
  /** The names changed in it since. */
  readonly names: ReadonlySet<string>;
}

const UNKNOWN = "unknown";
/** Beyond this many changed names, rebuilding from all entries is as cheap. */
const MAX_NAMES = 64;
/** Characters of tree text remembered per connection (8 MB at most for one-byte text). */
const MAX_CHARS = 4 * 1024 * 1024;

interface Memory {
  enabled: boolean;
  changes: Map<number, { base: string; names: Set<string> } | typeof UNKNOWN>;
  trees: Map<string, SortedTree>;
  chars: number;
}

const memories = new WeakMap<SqlSeam, Memory>();

function memoryOf(sql: SqlSeam): Memory {
  let memory = memories.get(sql);
  if (!memory) {
    memory = { enabled: false, changes: new Map(), trees: new Map(), chars: 0 };
    memories.set(sql, memory);
  }
  return memory;
}

/**
 * Records that entry `name` of directory `dir` changed; `base` is the hash
 * `dir` had until this change, or null when it was already dirty.
 */
export function noteChange(sql: SqlSeam, dir: number, name: string, base: string | null): void {
  const memory = memories.get(sql);
  if (!memory?.enabled) return;
  const record = memory.changes.get(dir);
  if (record === undefined) {
    memory.changes.set(dir, base === null ? UNKNOWN : { base, names: new Set([name]) });
  } else if (record !== UNKNOWN) {
    record.names.add(name);
    if (record.names.size > MAX_NAMES) memory.changes.set(dir, UNKNOWN);
  }
}

/** The recorded changes of a dirty directory, or undefined when it must be rebuilt in full. */
export function changesIn(sql: SqlSeam, dir: number): DirectoryChanges | undefined {
  const record = memories.get(sql)?.changes.get(dir);
  return record === UNKNOWN ? undefined : record;
}

/** Starts afresh after a commit; changes are recorded from now on only if `published`. */
export function committed(sql: SqlSeam, published: boolean): void {
  const memory = memoryOf(sql);
  memory.changes.clear();
  memory.enabled = published;
}

/** Stops recording until the next published commit (the hashes were forgotten). */
export function forgetChanges(sql: SqlSeam): void {
  committed(sql, false);
}

/** A remembered tree. */
export function recallTree(sql: SqlSeam, hash: string): SortedTree | undefined {
  return memories.get(sql)?.trees.get(hash);
}

/**
 * Remembers tree `hash` built from tree `replaces`, which is forgotten: a
 * directory's next change starts from its newest tree, and keeping each
 * version's text alive would cost the collector more than reading one back
 * from storage after a rollback does. Beyond the bound the least recently
 * remembered are forgotten too, never the newest.
 */
export function rememberTree(sql: SqlSeam, hash: string, tree: SortedTree, replaces: string): void {
  const memory = memoryOf(sql);
  forget(memory, replaces);
  forget(memory, hash);
  memory.trees.set(hash, tree);
  memory.chars += tree.text.length;
  while (memory.chars > MAX_CHARS && memory.trees.size > 1) {
    forget(memory, memory.trees.keys().next().value!);
  }
}

function forget(memory: Memory, hash: string): void {
  memory.chars -= memory.trees.get(hash)?.text.length ?? 0;
  memory.trees.delete(hash);
}
