/**
 * The hash of a tree object's text, resumable from before its first change.
 * A directory that gains a name gets a new tree whose text is the old one's
 * up to that entry: hashing it whole costs its full length at every change
 * (quadratic over a folder's growth). So while hashing a tree's text, the
 * SHA-256 state is saved at entry boundaries about `SPACING` characters
 * apart, and the next version of that tree is hashed from the last saved
 * state at or before its first changed character.
 *
 * Invariants:
 * - A checkpoint holds the state after exactly `text.slice(0, at)` of the
 *   text it was saved for, and `at` is the start of an entry: the character
 *   before it is `[` or `,`, so no part splits a surrogate pair and the
 *   digest equals the one-shot hash (root format 1's digests, unchanged).
 * - A saved state is never updated or finished, only copied: a checkpoint
 *   is shared between the trees whose texts have its prefix, and a rolled
 *   back tree leaves the ones it was built from valid.
 * - A `Sha256` without `begin` hashes the whole text, as before.
 *
 * @module
 */
import type { Sha256, Sha256State } from "./root-format.ts";
import type { TreeText } from "./tree-text.ts";

/** Characters between saved states, about: a copy costs what hashing ~0.5 KiB does. */
export const SPACING = 4096;

/** The hash state after the first `at` characters of a tree's text. */
export interface HashCheckpoint {
  readonly at: number;
  readonly state: Sha256State;
}

/** A tree text's hash and the states saved while computing it. */
export interface TreeHash {
  readonly hash: string;
  /** In increasing `at`; empty when `sha256` cannot save states. */
  readonly checkpoints: readonly HashCheckpoint[];
}

/** What a tree's earlier version left to resume from. */
export interface ResumeFrom {
  /** The checkpoints saved for the earlier text. */
  readonly checkpoints: readonly HashCheckpoint[];
  /** How many characters the earlier and the new text share at their start. */
  readonly unchanged: number;
}

/**
 * The object hash of `tree`'s text, resumed from `from`'s last checkpoint
 * within the unchanged prefix when there is one.
 */
export function hashTreeText(tree: TreeText, sha256: Sha256, from?: ResumeFrom): TreeHash {
  const begin = sha256.begin;
  if (begin === undefined) return { hash: sha256(tree.text), checkpoints: [] };
  const kept = from ? from.checkpoints.slice(0, keptCount(from)) : [];
  const last = kept.at(-1);
  const state = last ? last.state.copy() : begin();
  const { text, offsets } = tree;
  let at = last ? last.at : 0;
  for (let k = firstAtOrAfter(offsets, at + SPACING); k < offsets.length;) {
    state.update(text.slice(at, offsets[k]));
    at = offsets[k];
    kept.push({ at, state: state.copy() });
    k = firstAtOrAfter(offsets, at + SPACING, k + 1);
  }
  state.update(at === 0 ? text : text.slice(at));
  return { hash: state.hex(), checkpoints: kept };
}

/** How many of `from`'s checkpoints lie within the unchanged prefix. */
function keptCount(from: ResumeFrom): number {
  const { checkpoints, unchanged } = from;
  let low = 0;
  let high = checkpoints.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (checkpoints[middle].at <= unchanged) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The index of the first offset at or after `at`, searching from `low`. */
function firstAtOrAfter(offsets: readonly number[], at: number, low = 0): number {
  let high = offsets.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (offsets[middle] < at) low = middle + 1;
    else high = middle;
  }
  return low;
}
