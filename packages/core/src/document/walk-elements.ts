/**
 * Walking a document's elements. Its own module, importing only the tree's
 * types, so a host that checks a loaded program (`checkWorkflowSupport`)
 * does not load the parser with it.
 *
 * @module
 */
import type { Element, Part } from "./tree.ts";

/** Calls `visit` for every element in `parts`, depth first, in document order. */
export function walkElements(parts: readonly Part[], visit: (element: Element) => void): void {
  for (const part of parts) {
    if (part.kind !== "element") continue;
    visit(part.element);
    walkElements(part.element.children, visit);
    if (part.element.otherwise) {
      visit(part.element.otherwise);
      walkElements(part.element.otherwise.children, visit);
    }
  }
}
