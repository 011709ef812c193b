/**
 * Skip-deltas: which earlier tree a directory's new tree object is stored
 * against. The trees a directory has had since one was stored in full (its
 * version 0) are numbered; version _n_ is stored as a delta against version
 * _n_ with its lowest set bit cleared, holding every change since that base.
 * A chain of deltas from version _n_ to the full text is then as long as the
 * bits set in _n_ (at most 16 for any version below 65,536), so no periodic
 * full text is needed to bound it, and a delta against version 0 is taken
 * only every power of two (where a growing directory's delta, too large
 * against its text, is stored in full instead and the numbering restarts).
 *
 * Invariants:
 * - A history holds only what the trees' contents determine (content
 *   addressing): a tree's delta is exact against the content of its base,
 *   whichever rows store either. It removes only names the base has and
 *   sets only entries that differ from the base's, as a Durable Object
 *   requires of a delta it is sent (RM-14).
 * - Nothing here is mutated once built, so a history stays valid when the
 *   transaction that built a newer tree from it rolls back.
 * - A history keeps only the trees on its chain (at most one per bit of its
 *   version), each with its delta: memory follows the chain, not the number
 *   of versions.
 *
 * @module
 */
import { compareUtf8 } from "./workspace.ts";

const MAX_VERSION = 2 ** 30;

/** An entry's canonical JSON before and after a change; undefined where the name is absent. */
export interface EntryChange {
  readonly before: string | undefined;
  readonly after: string | undefined;
}

/** Where a remembered tree stands among its directory's versions. */
export interface TreeHistory {
  /** The tree's object hash. */
  readonly hash: string;
  /** Its version: 0 for a tree stored in full, or read from storage. */
  readonly version: number;
  /** The tree its delta is against (the version with its lowest set bit cleared); none at 0. */
  readonly base?: TreeHistory;
  /** The names that differ from `base`, with their entries there and here. */
  readonly sinceBase: ReadonlyMap<string, EntryChange>;
}

/** A tree's changes against its skip-delta base. */
export interface SkipDelta {
  /** The tree's version. */
  readonly version: number;
  /** The base's history. */
  readonly base: TreeHistory;
  /** Every name that differs from the base. */
  readonly changes: ReadonlyMap<string, EntryChange>;
}

/** The history of a tree stored in full, or known only from storage. */
export function origin(hash: string): TreeHistory {
  return { hash, version: 0, sinceBase: new Map() };
}

/**
 * The base and changes of the tree after `previous` whose changes from it
 * are `step`: the changes since the base are gathered down `previous`'s chain
 * (the newest value of a name wins after, the oldest before).
 */
export function skipDelta(
  previous: TreeHistory,
  step: ReadonlyMap<string, EntryChange>,
): SkipDelta {
  const version = previous.version + 1;
  const target = version & (version - 1);
  const changes = new Map(step);
  let base = previous;
  while (base.version > target && base.base) {
    for (const [name, older] of base.sinceBase) {
      const newer = changes.get(name);
      changes.set(name, newer ? { before: older.before, after: newer.after } : older);
    }
    base = base.base;
  }
  return { version, base, changes };
}

/** The history of the tree `hash` stored as `delta` (a delta after `skipDelta`'s). */
export function nextHistory(hash: string, delta: SkipDelta): TreeHistory {
  // Versions are numbered in 31-bit integers (`&`): past that, numbering starts again here.
  if (delta.version >= MAX_VERSION) return origin(hash);
  return { hash, version: delta.version, base: delta.base, sinceBase: delta.changes };
}

/** A skip-delta's body: the entries set and the names removed, each sorted by UTF-8 name. */
export function deltaBody(changes: ReadonlyMap<string, EntryChange>): {
  set: string[];
  remove: string[];
} {
  const set: [string, string][] = [];
  const remove: string[] = [];
  for (const [name, { before, after }] of changes) {
    if (after === undefined) {
      if (before !== undefined) remove.push(name);
    } else if (after !== before) set.push([name, after]);
  }
  set.sort(([a], [b]) => compareUtf8(a, b));
  remove.sort(compareUtf8);
  return { set: set.map(([, entry]) => entry), remove };
}
