/**
 * How deeply a value received from outside (a props object, an answer,
 * frontmatter) may nest arrays and objects inside each other. A value nested
 * thousands deep parses, but every recursive step after it (canonical JSON,
 * schema validation, `JSON.stringify`) would overflow the stack mid-run; so it
 * is refused where it enters, before anything is stored.
 *
 * Invariant: the check itself never recurses, and visits each distinct array
 * or object once (a value built from shared parts costs its parts, not its
 * paths).
 *
 * @module
 */

/** The deepest nesting accepted: a scalar is 0 deep, `[]` 1, `[[]]` 2. */
export const MAX_JSON_DEPTH = 128;

/**
 * Whether `value` nests arrays and objects more than `max` deep.
 *
 * @example Checking an answer
 * ```ts
 * import assert from "node:assert/strict";
 * import { nestsDeeperThan } from "./json-depth.ts";
 * assert.equal(nestsDeeperThan({ a: [1, 2] }, 2), false);
 * assert.equal(nestsDeeperThan([[[]]], 2), true);
 * ```
 */
export function nestsDeeperThan(value: unknown, max: number = MAX_JSON_DEPTH): boolean {
  if (!isContainer(value)) return false;
  // Heights of the containers already measured, and the containers being measured (a path).
  const heights = new Map<object, number>();
  const path: { node: object; children: unknown[]; next: number; tallest: number }[] = [];
  const open = (node: object) =>
    path.push({ node, children: Object.values(node), next: 0, tallest: 0 });
  open(value);
  while (path.length > 0) {
    const top = path[path.length - 1];
    if (top.next < top.children.length) {
      const child = top.children[top.next++];
      if (!isContainer(child)) continue;
      const known = heights.get(child);
      if (path.length + (known ?? 1) > max) return true;
      if (known !== undefined) top.tallest = Math.max(top.tallest, known);
      else open(child);
      continue;
    }
    path.pop();
    const height = top.tallest + 1;
    heights.set(top.node, height);
    if (path.length > 0) {
      const parent = path[path.length - 1];
      parent.tallest = Math.max(parent.tallest, height);
    }
  }
  return false;
}

function isContainer(value: unknown): value is object {
  return typeof value === "object" && value !== null;
}
