/**
 * `for NAME; do … done` (and `for NAME do`) iterates over the positional
 * parameters as `for NAME in "$@"` does, as in bash (WS-171): each
 * argument is one word, spaces and all. just-bash split the parameters
 * joined with spaces, so `set -- "a b" c; for x; do …` ran three times,
 * with `a`, `b` and `c`, and a function looping over its arguments that
 * way saw a path with a space as two.
 *
 * Before a block runs, this transform gives each such loop the word
 * `"$@"`, which just-bash expands as bash does.
 *
 * Invariants:
 * - Only a `for` without `in` is changed; `for x in …` and `for ((…))`
 *   run as written, in every script just-bash runs.
 *
 * @module
 */
import type { CommandNode, ScriptNode, TransformPlugin, WordNode } from "just-bash";

type For = Extract<CommandNode, { type: "For" }>;

/** `"$@"`. */
function allArguments(): WordNode {
  return {
    type: "Word",
    parts: [{
      type: "DoubleQuoted",
      parts: [{ type: "ParameterExpansion", parameter: "@", operation: null }],
    }],
  } as WordNode;
}

/** Gives, in place, every `for` without `in` under `root` the word `"$@"`. */
function giveArguments(root: object): void {
  const stack: object[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as { type?: unknown };
    if (node.type === "For" && (node as For).words === null) (node as For).words = [allArguments()];
    for (const child of Object.values(node)) {
      if (child !== null && typeof child === "object") stack.push(child);
    }
  }
}

/** The transform (stateless): every script just-bash runs. */
export const forArgsPlugin: TransformPlugin = {
  name: "xmd-for-args",
  transform({ ast }): { ast: ScriptNode } {
    giveArguments(ast);
    return { ast };
  },
};
