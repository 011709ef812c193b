/**
 * Document targets (`doc.md#Section/Sub`): the preamble, the direct content of
 * each ancestor heading and the selected heading's subtree. A selector must
 * match exactly one heading; zero or several is refused before anything runs.
 *
 * @module
 */
import type { Heading, Nodes, RootContent } from "mdast";
import { DocumentError } from "./document-error.ts";

/** Selects the top-level node ranges a target renders, in document order. */
export function selectTarget(
  body: readonly RootContent[],
  target: string,
  file: string,
): RootContent[][] {
  const path = target.split("/").map((segment) => segment.trim());
  if (path.some((segment) => segment === "")) {
    throw new DocumentError(
      `Invalid target "#${target}": name headings separated by /, like #Release/Publish`,
      { file, line: 1, column: 1 },
    );
  }
  const headings = body.flatMap((node, index) => node.type === "heading" ? [index] : []);
  const parentOf = new Map<number, number | undefined>();
  const stack: number[] = [];
  for (const index of headings) {
    const depth = (body[index] as Heading).depth;
    while (stack.length && (body[stack[stack.length - 1]] as Heading).depth >= depth) stack.pop();
    parentOf.set(index, stack[stack.length - 1]);
    stack.push(index);
  }
  const matches = headings.filter((index) => {
    if (headingText(body[index]) !== path[path.length - 1]) return false;
    let current = parentOf.get(index);
    for (let segment = path.length - 2; segment >= 0; segment--) {
      while (current !== undefined && headingText(body[current]) !== path[segment]) {
        current = parentOf.get(current);
      }
      if (current === undefined) return false;
      current = parentOf.get(current);
    }
    return true;
  });
  if (matches.length !== 1) {
    const where = matches.length === 0
      ? { file, line: 1, column: 1 }
      : { file, line: body[matches[1]].position!.start.line, column: 1 };
    const lines = matches.map((index) => body[index].position!.start.line).join(", ");
    throw new DocumentError(
      matches.length === 0
        ? `Target "#${target}" matches no heading: name an existing heading path`
        : `Target "#${target}" matches ${matches.length} headings (lines ${lines}): name a longer path`,
      where,
    );
  }
  const selected = matches[0];
  const firstHeading = headings[0];
  const ranges: RootContent[][] = [body.slice(0, firstHeading)];
  const ancestors: number[] = [];
  for (let at = parentOf.get(selected); at !== undefined; at = parentOf.get(at)) {
    ancestors.unshift(at);
  }
  for (const ancestor of ancestors) {
    const next = headings.find((index) => index > ancestor) ?? body.length;
    ranges.push(body.slice(ancestor, next));
  }
  const depth = (body[selected] as Heading).depth;
  const end =
    headings.find((index) => index > selected && (body[index] as Heading).depth <= depth) ??
      body.length;
  ranges.push(body.slice(selected, end));
  return ranges;
}

function headingText(node: Nodes): string {
  let text = "";
  const visit = (current: Nodes) => {
    if (current.type === "text" || current.type === "inlineCode") text += current.value;
    else if ("children" in current) current.children.forEach(visit);
  };
  visit(node);
  return text.trim();
}
