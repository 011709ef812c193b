/**
 * An arithmetic expression holding a `${…}` expansion just-bash cannot
 * evaluate in place is expanded as text first, then evaluated, as in bash
 * (WS-172): `$(( ${v#0} + 1 ))` with `v=08` is 9, `$(( ${ver%%.*} + 1 ))`
 * the next major version, `$(( ${m[$k]:-0} + 1 ))` counts in an
 * associative array, `$(( ${a[-1]} * 2 ))`, `$(( 10#${v} ))`.
 *
 * bash expands every `$` in an arithmetic expression's text, then
 * evaluates the result. just-bash parses the expression first and reads a
 * `${…}` inside it with a lookup that knows only a name, a length, a plain
 * subscript and a default for a plain name: anything else (`#`, `%`, `/`,
 * a default for an array element, a negative subscript, `10#${v}`) read as
 * an unset variable, and the expression's result was silently wrong (1 for
 * each of the examples above but the last, whose `${a[-1]}` read the first
 * element).
 *
 * Before a block runs, each such expression, `$(( TEXT ))` or
 * `(( TEXT ))`, becomes the name of a variable assigned just before its
 * command as `__xmd_arith_N="TEXT"` (so `TEXT` is expanded as bash expands
 * it), which just-bash then evaluates as an expression, assignments and
 * all. For a command that only assigns, the variable's assignment joins its
 * assignments, just before the first that uses it (bash assigns left to
 * right); any other command runs in a group of its own after it.
 *
 * Invariants:
 * - A command substitution in an expression (`(( $(echo "$a > $b" | bc) ))`)
 *   moves too (WS-185): just-bash kept its text without its quotes, so
 *   `"$a > $b"` ran as a redirection to a file named by `$b`.
 * - An expression whose `${…}` are all of the kinds just-bash reads
 *   (`${x}`, `${#x}`, `${#a[@]}`, `${a[i]}`, `${x:-0}`) and that holds no
 *   command substitution runs as written, and so does one whose text holds
 *   a `"`, a backslash or a backquote outside a command substitution.
 * - A command that reads `$?`, a `for (( ))` header and an expression in a
 *   `case`, `[[ ]]` or `for … in` word run as written.
 * - The `__xmd_arith_N` variables are left set.
 *
 * @module
 */
// The interpreter runs with no configuration file, so its import names the exact version.
// deno-lint-ignore no-import-prefix
import { parse } from "npm:just-bash@3.4.2";
import type { CommandNode, ScriptNode, TransformPlugin, WordNode } from "just-bash";
import { afterAssigning, readsStatus, replaceCommands } from "./worker-shell-ast.ts";

/** Whether a block's text may hold a `${…}`, a `$( )` or a backquote inside an arithmetic expression. */
export function mayExpandInArithmetic(text: string): boolean {
  return (text.includes("${") || /\$\((?!\()|`/.test(text)) &&
    (text.includes("((") || text.includes("$["));
}

type Simple = Extract<CommandNode, { type: "SimpleCommand" }>;
type Assignment = Simple["assignments"][number];
type Part = WordNode["parts"][number];
type ArithmeticPart = Extract<Part, { type: "ArithmeticExpansion" }>;
type Expression = ArithmeticPart["expression"];

/** The `${…}` contents just-bash's arithmetic reads as bash does. */
const READ_IN_PLACE = [
  /^[A-Za-z_]\w*$/,
  /^#[A-Za-z_]\w*(?:\[[@*]\])?$/,
  /^[A-Za-z_]\w*\[(?:\d+|[A-Za-z_]\w*|\$[A-Za-z_]\w*)\]$/,
  /^[A-Za-z_]\w*:?[-=+]\d+$/,
];

/** Whether `expression` holds an expansion just-bash would read wrong (and its text can move). */
function needsText(expression: Expression): boolean {
  const text = expression.originalText;
  return text !== undefined && readsWrong(expression) && movable(text);
}

/** Whether just-bash would evaluate an expansion of `expression` otherwise than bash. */
function readsWrong(expression: Expression): boolean {
  const stack: unknown[] = [expression.expression];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== "object") continue;
    const { type, content } = node as { type?: unknown; content?: unknown };
    if (
      type === "ArithBracedExpansion" && typeof content === "string" &&
      !READ_IN_PLACE.some((pattern) => pattern.test(content))
    ) return true;
    // A base before an expansion (`10#${v}`) is a concatenation just-bash cannot read.
    if (type === "ArithConcat" || type === "ArithDynamicBase" || type === "ArithDynamicNumber") {
      return true;
    }
    // just-bash keeps a command substitution's text without its quotes (WS-185).
    if (type === "ArithCommandSubst") return true;
    stack.push(...Object.values(node));
  }
  return false;
}

/** `text` without the command substitutions in it (`$( … )`, backquotes), whose quotes are their own. */
function outsideSubstitutions(text: string): string {
  let outside = "";
  for (let at = 0; at < text.length;) {
    if (text[at] === "`") {
      const end = text.indexOf("`", at + 1);
      at = end < 0 ? text.length : end + 1;
      continue;
    }
    if (!text.startsWith("$(", at) || text.startsWith("$((", at)) {
      outside += text[at++];
      continue;
    }
    let depth = 0;
    let quote: string | undefined;
    for (at += 1; at < text.length; at++) {
      const char = text[at];
      if (quote) {
        if (char === "\\" && quote === '"') at++;
        else if (char === quote) quote = undefined;
      } else if (char === "'" || char === '"') quote = char;
      else if (char === "\\") at++;
      else if (char === "(") depth++;
      else if (char === ")" && --depth === 0) break;
    }
    at++;
  }
  return outside;
}

/** Whether `text` reads the same assigned in double quotes: no quote or backslash of its own. */
function movable(text: string): boolean {
  if (/["\\`]/.test(outsideSubstitutions(text))) return false;
  try {
    const value = textAssignment("__xmd_arith_0", text).value;
    return value?.parts.length === 1 && value.parts[0].type === "DoubleQuoted";
  } catch {
    return false;
  }
}

/** `__xmd_arith_N="TEXT"`, parsed as just-bash parses it. */
function textAssignment(name: string, text: string): Assignment {
  const script = parse(`${name}="${text}"`);
  const command = script.statements[0].pipelines[0].commands[0] as Simple;
  return command.assignments[0];
}

/** The expression that evaluates variable `name`. */
function evaluating(name: string): Expression {
  return {
    type: "ArithmeticExpression",
    expression: { type: "ArithVariable", name, hasDollarPrefix: false },
    originalText: name,
  } as Expression;
}

/** Moves the arithmetic texts of `parts` (and their double quotes) into `moved`. */
function moveTexts(parts: Part[], moved: Assignment[]): Part[] {
  return parts.map((part) => {
    if (part.type === "DoubleQuoted") return { ...part, parts: moveTexts(part.parts, moved) };
    if (part.type !== "ArithmeticExpansion" || !needsText(part.expression)) return part;
    const name = `__xmd_arith_${moved.length}`;
    moved.push(textAssignment(name, part.expression.originalText ?? ""));
    return { ...part, expression: evaluating(name) };
  });
}

function holdsText(parts: readonly Part[]): boolean {
  return parts.some((part) =>
    (part.type === "ArithmeticExpansion" && needsText(part.expression)) ||
    (part.type === "DoubleQuoted" && holdsText(part.parts))
  );
}

function movedIn(word: WordNode, moved: Assignment[]): WordNode {
  return holdsText(word.parts) ? { ...word, parts: moveTexts(word.parts, moved) } : word;
}

/** A command that only assigns, each text assigned just before the first assignment using it. */
function assigning(command: Simple): Simple {
  if (!command.assignments.some((a) => a.value !== null && holdsText(a.value.parts))) {
    return command;
  }
  const moved: Assignment[] = [];
  const assignments: Assignment[] = [];
  for (const assignment of command.assignments) {
    if (assignment.value === null || !holdsText(assignment.value.parts)) {
      assignments.push(assignment);
      continue;
    }
    const before = moved.length;
    const parts = moveTexts(assignment.value.parts, moved);
    assignments.push(...moved.slice(before), {
      ...assignment,
      value: { ...assignment.value, parts },
    });
  }
  return { ...command, assignments };
}

/** `command` with its texts moved into `moved`. */
function withTextsMoved(command: CommandNode, moved: Assignment[]): CommandNode {
  const move = (word: WordNode) => movedIn(word, moved);
  if (command.type === "ArithmeticCommand") {
    if (!needsText(command.expression)) return command;
    const name = `__xmd_arith_${moved.length}`;
    moved.push(textAssignment(name, command.expression.originalText ?? ""));
    return { ...command, expression: evaluating(name) };
  }
  if (command.type !== "SimpleCommand") return command;
  return {
    ...command,
    assignments: command.assignments.map((assignment) =>
      assignment.value ? { ...assignment, value: move(assignment.value) } : assignment
    ),
    name: command.name && move(command.name),
    args: command.args.map(move),
    redirections: command.redirections.map((redirection) => {
      if (redirection.target.type === "Word") {
        return { ...redirection, target: move(redirection.target) };
      }
      if (redirection.target.quoted) return redirection;
      return {
        ...redirection,
        target: { ...redirection.target, content: move(redirection.target.content) },
      };
    }),
  };
}

/** `command` with its texts made right: see the module's description. */
function rewritten(command: CommandNode): CommandNode {
  if (command.type === "SimpleCommand" && command.name === null) return assigning(command);
  if (readsStatus(command)) return command;
  const moved: Assignment[] = [];
  const changed = withTextsMoved(command, moved);
  if (moved.length === 0) return command;
  return afterAssigning(moved, changed);
}

/** The transform: every script just-bash runs in a block whose text may need it. */
export const arithTextPlugin: TransformPlugin = {
  name: "xmd-arith-text",
  transform({ ast }): { ast: ScriptNode } {
    replaceCommands(ast, rewritten);
    return { ast };
  },
};
