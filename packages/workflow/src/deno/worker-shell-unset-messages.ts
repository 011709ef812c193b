/**
 * `${NAME:?}` and `${NAME?}` say which parameter is missing (WS-146), as
 * bash does. just-bash wrote only `bash: ` for `${NAME:?}` (the idiom
 * `: "${API_KEY:?}"` that guards a required variable said nothing of which),
 * `bash: must be set` for `${NAME:?must be set}`, and "null or not set" for
 * `${NAME?}` too. Before a block runs, this transform gives each such
 * expansion bash's message: `NAME: parameter null or not set` (with `:`),
 * `NAME: parameter not set` (without), or `NAME: ` before the script's own
 * words. The expansion's value, status and when it fails are just-bash's;
 * bash's `line N:` is not written, as in every message of just-bash's.
 * Worker Shell's own failing expansions (a brace range too long, WS-116)
 * already name what failed and are left as they are.
 *
 * @module
 */
import type { ScriptNode, TransformPlugin, WordNode } from "just-bash";

type WordPart = WordNode["parts"][number];
type ParameterExpansion = Extract<WordPart, { type: "ParameterExpansion" }>;
type ErrorIfUnset = Extract<NonNullable<ParameterExpansion["operation"]>, { type: "ErrorIfUnset" }>;

function isErrorIfUnset(value: object): value is ParameterExpansion & { operation: ErrorIfUnset } {
  const operation = (value as { operation?: { type?: unknown } }).operation;
  return (value as { type?: unknown }).type === "ParameterExpansion" &&
    typeof (value as { parameter?: unknown }).parameter === "string" &&
    operation?.type === "ErrorIfUnset";
}

/** Gives `expansion` bash's message, naming its parameter. */
function named(expansion: ParameterExpansion & { operation: ErrorIfUnset }): void {
  const { parameter, operation } = expansion;
  const parts = operation.word?.parts ?? [];
  const first = parts[0];
  // Already named (Worker Shell's own failing expansions are).
  if (first?.type === "Literal" && first.value.startsWith(`${parameter}: `)) return;
  // `${NAME:?}` reads as a word of one empty literal.
  if (parts.every((part) => part.type === "Literal" && part.value === "")) {
    const why = operation.checkEmpty ? "parameter null or not set" : "parameter not set";
    operation.word = { type: "Word", parts: [{ type: "Literal", value: `${parameter}: ${why}` }] };
    return;
  }
  operation.word = {
    ...operation.word!,
    parts: [{ type: "Literal", value: `${parameter}: ` }, ...parts],
  };
}

/** Names the parameter of every `${NAME:?…}` and `${NAME?…}` under `node`. */
function nameAll(node: object): void {
  const pending: object[] = [node];
  while (pending.length > 0) {
    const value = pending.pop()!;
    if (isErrorIfUnset(value)) named(value);
    for (const child of Array.isArray(value) ? value : Object.values(value)) {
      if (child !== null && typeof child === "object") pending.push(child);
    }
  }
}

/** The transform, registered on each `Bash` the interpreter creates. */
export const unsetMessagePlugin: TransformPlugin = {
  name: "xmd-unset-messages",
  transform({ ast }): { ast: ScriptNode } {
    nameAll(ast);
    return { ast };
  },
};
