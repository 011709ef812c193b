/**
 * Brace ranges longer than just-bash expands. just-bash stops expanding a
 * range such as `{1..12000}` after its 10,000th word and says nothing, so
 * `for i in {1..12000}` would run 10,000 times and a script would go on with
 * a silently wrong result. Before a block runs, this transform replaces each
 * such range by an expansion that fails when it is reached, as bash's
 * `${name:?message}` does: `bash: {1..12000}: ...` on stderr, and the script
 * ends with status 1 (a command substitution's subshell ends, its caller
 * goes on with `$?` 1). A range in a branch that does not run fails nothing.
 *
 * Invariant: only a numeric range of more than `RANGE_WORDS` words is
 * replaced (a letter range has at most 58); a script without one is
 * returned as it came.
 *
 * @module
 */
import type { ScriptNode, TransformPlugin, WordNode } from "just-bash";

/** The most words just-bash expands one brace range to. */
export const RANGE_WORDS = 10_000;

type WordPart = WordNode["parts"][number];
type BraceExpansion = Extract<WordPart, { type: "BraceExpansion" }>;
type Range = Extract<BraceExpansion["items"][number], { type: "Range" }>;
type ParameterExpansion = Extract<WordPart, { type: "ParameterExpansion" }>;

/** How many words `range` stands for, or undefined when it is no numeric range. */
export function rangeWords(range: Range): number | undefined {
  const { start, end } = range;
  if (typeof start !== "number" || typeof end !== "number") return undefined;
  // As just-bash counts: the step's sign is ignored, and a step of 0 is 1.
  const step = Math.abs(range.step || 1);
  return Math.floor(Math.abs(end - start) / step) + 1;
}

function text(range: Range): string {
  const step = range.step === undefined ? "" : `..${range.step}`;
  return `{${range.startStr ?? range.start}..${range.endStr ?? range.end}${step}}`;
}

/** `${<range>:?message}`: a name no script can set, so it always fails with the message. */
function failing(range: Range, words: number): ParameterExpansion {
  const message = `Worker Shell expands a brace range to at most ${
    RANGE_WORDS.toLocaleString("en-US")
  } words, and this one has ${words.toLocaleString("en-US")}: generate them with seq`;
  return {
    type: "ParameterExpansion",
    parameter: text(range),
    operation: {
      type: "ErrorIfUnset",
      word: { type: "Word", parts: [{ type: "Literal", value: `${text(range)}: ${message}` }] },
      checkEmpty: false,
    },
  };
}

/** The replacement of `part`, when it is a brace expansion holding a range too long to expand. */
function replacement(part: BraceExpansion): ParameterExpansion | undefined {
  for (const item of part.items) {
    if (item.type !== "Range") continue;
    const words = rangeWords(item);
    if (words !== undefined && words > RANGE_WORDS) return failing(item, words);
  }
  return undefined;
}

function isBraceExpansion(value: object): value is BraceExpansion {
  return (value as { type?: unknown }).type === "BraceExpansion" &&
    Array.isArray((value as { items?: unknown }).items);
}

/** Replaces, in place, every brace expansion under `node` that holds a range too long. */
function replaceLongRanges(node: object): void {
  const pending: object[] = [node];
  while (pending.length > 0) {
    const value = pending.pop()!;
    const children: unknown[] = Array.isArray(value) ? value : Object.values(value);
    children.forEach((child, index) => {
      if (child === null || typeof child !== "object") return;
      const swapped = isBraceExpansion(child) ? replacement(child) : undefined;
      if (swapped === undefined) return pending.push(child);
      if (Array.isArray(value)) value[index] = swapped;
    });
  }
}

/** The transform, registered on each `Bash` the interpreter creates. */
export const braceRangePlugin: TransformPlugin = {
  name: "xmd-brace-ranges",
  transform({ ast }): { ast: ScriptNode } {
    replaceLongRanges(ast);
    return { ast };
  },
};
