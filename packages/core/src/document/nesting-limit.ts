/**
 * How deeply a document may nest: elements inside elements, block quotes,
 * lists and their items, each one level. Parsing, checking and rendering walk
 * the tree by recursion, so a tree thousands deep would overflow the stack;
 * a document is refused at its first node past the bound instead, before
 * anything runs. (markdown-it's `maxNesting` bounds the same thing at 100.)
 *
 * Invariant: the check itself never recurses.
 *
 * @module
 */
import type { Nodes, Root } from "mdast";
import { DocumentError } from "./document-error.ts";

/** The most levels a node may sit below the document's top level. */
export const MAX_NESTING = 100;

/** Refuses `tree` at its first node (in document order) nested more than `MAX_NESTING` levels deep. */
export function checkNesting(tree: Root, file: string): void {
  const pending: { node: Nodes; depth: number }[] = [{ node: tree, depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { node, depth } = next;
    if (depth > MAX_NESTING) {
      const start = node.position?.start;
      throw new DocumentError(
        `Cannot nest elements and Markdown blocks more than ${MAX_NESTING} levels deep: ` +
          "move the inner part into a component",
        { file, line: start?.line ?? 1, column: start?.column ?? 1 },
      );
    }
    const children = "children" in node ? node.children as Nodes[] : [];
    // Pushed last first, so the first node past the bound in document order is the one named.
    for (let i = children.length - 1; i >= 0; i--) {
      pending.push({ node: children[i], depth: depth + 1 });
    }
  }
}
