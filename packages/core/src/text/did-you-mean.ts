/**
 * "Did you mean": the known name closest to a mistyped one, for messages
 * about unknown commands, options, components and modifiers.
 *
 * Invariant: a suggestion is offered only when it is close (an edit distance
 * of at most a third of the typed name's length, and at most 3, counting a
 * swap of two neighbouring characters as one edit), so a wild guess is never
 * presented as a likely fix; ties go to the first candidate.
 *
 * @module
 */

/**
 * The candidate closest to `typed`, if one is close enough to suggest.
 *
 * @example A transposed modifier
 * ```ts
 * import assert from "node:assert/strict";
 * import { didYouMean } from "./did-you-mean.ts";
 * assert.equal(didYouMean("sielnt", ["silent", "timeout", "as"]), "silent");
 * assert.equal(didYouMean("xyz", ["silent", "timeout", "as"]), undefined);
 * ```
 */
export function didYouMean(typed: string, candidates: Iterable<string>): string | undefined {
  const limit = Math.min(3, Math.max(1, Math.floor(typed.length / 3)));
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of candidates) {
    if (candidate === typed) continue;
    const distance = editDistance(typed.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps. */
function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[] = new Array(rows * cols);
  for (let i = 0; i < rows; i++) d[i * cols] = i;
  for (let j = 0; j < cols; j++) d[j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(
        d[(i - 1) * cols + j] + 1,
        d[i * cols + j - 1] + 1,
        d[(i - 1) * cols + j - 1] + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, d[(i - 2) * cols + j - 2] + 1);
      }
      d[i * cols + j] = value;
    }
  }
  return d[rows * cols - 1];
}
