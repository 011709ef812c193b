/**
 * `"${NAME:-default}"` under `set -u`. A word that is only a quoted default,
 * alternative or assigned default of one parameter (`"${1:-}"`,
 * `"${DEBUG:-0}"`, `"${X:+set}"`, `"${X:=v}"`, `"${X-}"`) takes a shortcut in
 * just-bash that reads the parameter as a plain `$NAME` would, so under
 * `set -u` an unset one failed with `NAME: unbound variable`: the very
 * guard `set -euo pipefail` scripts use for optional arguments ended them.
 * The same expansion with anything beside it in the quotes (`"a${X:-b}"`)
 * took the general path, which reads it as bash does. Before a block runs,
 * this transform puts an empty text beside each such expansion, so it takes
 * that path; the words are the same.
 *
 * Invariants:
 * - Only a quoted word holding one such expansion of a scalar parameter is
 *   changed (an array's `"${a[@]:-x}"` keeps just-bash's shortcut, which
 *   reads it right), and only in a block whose text can turn nounset on.
 *
 * @module
 */
import type { ScriptNode, TransformPlugin, WordNode } from "just-bash";

/** A block whose text may turn nounset on: `set -u`, `set -euo pipefail`, `set -o nounset`, … */
export const MAY_SET_NOUNSET = /\bset\s+(?:[-+][A-Za-z]*u|[^\n;]*nounset)|\bSHELLOPTS\b/;

type WordPart = WordNode["parts"][number];
type DoubleQuoted = Extract<WordPart, { type: "DoubleQuoted" }>;

/** The operations whose one-expansion quoted word just-bash reads with a plain lookup. */
const SHORTCUT = new Set(["DefaultValue", "UseAlternative", "AssignDefault"]);

function isShortcut(value: object): value is DoubleQuoted {
  const quoted = value as Partial<DoubleQuoted>;
  if (quoted.type !== "DoubleQuoted" || quoted.parts?.length !== 1) return false;
  const part = quoted.parts[0];
  return part.type === "ParameterExpansion" && SHORTCUT.has(part.operation?.type ?? "") &&
    !/\[[@*]\]$/.test(part.parameter);
}

/** Adds, in place, an empty text beside every such expansion under `node`. */
function widenAll(node: object): void {
  const stack: object[] = [node];
  while (stack.length > 0) {
    const value = stack.pop()!;
    if (isShortcut(value)) value.parts.push({ type: "Literal", value: "" });
    for (const child of Object.values(value)) {
      if (child !== null && typeof child === "object") stack.push(child);
    }
  }
}

/** The transform (stateless: one object serves every block). */
export const nounsetDefaultsPlugin: TransformPlugin = {
  name: "xmd-nounset-defaults",
  transform({ ast }): { ast: ScriptNode } {
    widenAll(ast);
    return { ast };
  },
};
