/**
 * An array joined into one string (`"${arr[*]}"`) where no word splitting
 * follows is joined with the first character of `IFS`, as in bash (WS-169):
 * `IFS=,; csv="${fields[*]}"`, `local list="${names[*]}"`,
 * `IFS=, joined="${arr[*]}"`, `cat <<< "${arr[*]}"`, a here-document,
 * `case "${arr[*]}" in`, `[[ "${arr[*]}" == … ]]`.
 *
 * just-bash joins `"${arr[*]}"` with `IFS` where it expands a command's
 * words or an array's elements, but where it expands a word to one string
 * (a scalar assignment's value, a `NAME=value` operand of `local`,
 * `declare`, `typeset`, `export` or `readonly`, a here-string or
 * here-document, a `case` subject, a `[[ ]]` operand) it reads the array
 * through a lookup that joins with a space whatever `IFS` holds:
 * `IFS=,; csv="${f[*]}"` gave `a b c`, silently.
 *
 * This transform moves each such join into an array assignment run just
 * before the command, `__xmd_join=("${arr[*]}" …)`, where just-bash joins
 * as bash does, and puts `${__xmd_join[N]}` in its place. For a command
 * that only assigns, the array assignment joins its assignments, just
 * before the first that uses it (bash assigns left to right, so
 * `IFS=, joined=…` joins with `,`); any other command runs in a group of
 * its own after it (a group is not a subshell: `local` still declares in
 * its function).
 *
 * Invariants:
 * - Only a join whose expansion is the word's own or in its double quotes
 *   is moved, with its operation (`${arr[*]/#/-}`); not a length
 *   (`${#arr[*]}`), nor one inside a command substitution or another
 *   expansion's word.
 * - A command other than an assignment that reads `$?` is left as it was
 *   (the array assignment before it would set `$?`).
 * - `__xmd_join` is left set after the command (a variable of Worker
 *   Shell's: unsetting it would change `$?`).
 * - A script without such a join is returned as it came.
 *
 * @module
 */
import type { CommandNode, ScriptNode, TransformPlugin, WordNode } from "just-bash";
import { afterAssigning, literalOf, readsStatus, replaceCommands } from "./worker-shell-ast.ts";

/** A block whose text may join an array with `[*]`. */
export const MAY_JOIN_ARRAYS = /\[\*\]/;

/** The array the joins are moved into. */
const JOIN = "__xmd_join";

type Simple = Extract<CommandNode, { type: "SimpleCommand" }>;
type Part = WordNode["parts"][number];
type Expansion = Extract<Part, { type: "ParameterExpansion" }>;
type Assignment = Simple["assignments"][number];

/** The declaration commands whose `NAME=value` operands are assigned as values. */
const DECLARES: ReadonlySet<string> = new Set([
  "local",
  "declare",
  "typeset",
  "export",
  "readonly",
]);

function isStarJoin(part: Part): part is Expansion {
  return part.type === "ParameterExpansion" && /^[A-Za-z_]\w*\[\*\]$/.test(part.parameter) &&
    part.operation?.type !== "Length";
}

/**
 * Replaces, in `parts` and the double quotes among them, each star join
 * with `${__xmd_join[N]}`, and adds the join to `moved`.
 */
function moveJoins(parts: Part[], moved: Expansion[]): Part[] {
  return parts.map((part) => {
    if (part.type === "DoubleQuoted") return { ...part, parts: moveJoins(part.parts, moved) };
    if (!isStarJoin(part)) return part;
    moved.push(part);
    return {
      type: "ParameterExpansion",
      parameter: `${JOIN}[${moved.length - 1}]`,
      operation: null,
    };
  });
}

function holdsJoin(parts: readonly Part[]): boolean {
  return parts.some((part) =>
    isStarJoin(part) || (part.type === "DoubleQuoted" && holdsJoin(part.parts))
  );
}

/** Whether `word` is a `NAME=…` operand. */
function isAssignmentOperand(word: WordNode): boolean {
  const first = word.parts[0];
  return first?.type === "Literal" && /^[A-Za-z_]\w*(?:\[[^\]]*\])?\+?=/.test(first.value);
}

/** `__xmd_join=("…" …)`, the moved joins as its elements. */
function joinAssignment(moved: readonly Expansion[]): Assignment {
  return {
    type: "Assignment",
    name: JOIN,
    value: null,
    append: false,
    array: moved.map((expansion) => ({
      type: "Word",
      parts: [{ type: "DoubleQuoted", parts: [expansion] }],
    })),
  };
}

/** Moves the joins of a word that is expanded to one string; the same word if it holds none. */
function movedIn(word: WordNode, moved: Expansion[]): WordNode {
  return holdsJoin(word.parts) ? { ...word, parts: moveJoins(word.parts, moved) } : word;
}

/** A command that only assigns, its joins moved into an array assignment among its own. */
function assigning(command: Simple): Simple {
  const first = command.assignments.findIndex((assignment) =>
    assignment.value !== null && holdsJoin(assignment.value.parts)
  );
  if (first < 0) return command;
  const moved: Expansion[] = [];
  const rest = command.assignments.slice(first).map((assignment) =>
    assignment.value ? { ...assignment, value: movedIn(assignment.value, moved) } : assignment
  );
  return {
    ...command,
    assignments: [...command.assignments.slice(0, first), joinAssignment(moved), ...rest],
  };
}

/** The words of `expression` (a `[[ ]]` expression), each replaced by `replace`. */
function mapWords(node: unknown, replace: (word: WordNode) => WordNode): unknown {
  if (Array.isArray(node)) return node.map((item) => mapWords(item, replace));
  if (node === null || typeof node !== "object") return node;
  if ((node as { type?: unknown }).type === "Word") return replace(node as WordNode);
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [key, mapWords(value, replace)]),
  );
}

/** `command` with the joins it expands to one string moved into `moved`. */
function withJoinsMoved(command: CommandNode, moved: Expansion[]): CommandNode {
  const move = (word: WordNode) => movedIn(word, moved);
  switch (command.type) {
    case "SimpleCommand": {
      const name = literalOf(command.name);
      const declares = name !== undefined && DECLARES.has(name);
      return {
        ...command,
        assignments: command.assignments.map((assignment) =>
          assignment.value ? { ...assignment, value: move(assignment.value) } : assignment
        ),
        args: declares
          ? command.args.map((arg) => isAssignmentOperand(arg) ? move(arg) : arg)
          : command.args,
        redirections: command.redirections.map((redirection) => {
          if (redirection.operator === "<<<" && redirection.target.type === "Word") {
            return { ...redirection, target: move(redirection.target) };
          }
          if (redirection.target.type === "HereDoc" && !redirection.target.quoted) {
            const heredoc = redirection.target;
            return { ...redirection, target: { ...heredoc, content: move(heredoc.content) } };
          }
          return redirection;
        }),
      };
    }
    case "Case":
      return { ...command, word: move(command.word) };
    case "ConditionalCommand":
      return {
        ...command,
        expression: mapWords(command.expression, move) as typeof command.expression,
      };
    default:
      return command;
  }
}

/** `command` with its one-string joins made right: see the module's description. */
function rewritten(command: CommandNode): CommandNode {
  if (command.type === "SimpleCommand" && command.name === null) return assigning(command);
  if (readsStatus(command)) return command;
  const moved: Expansion[] = [];
  const changed = withJoinsMoved(command, moved);
  if (moved.length === 0) return command;
  return afterAssigning([joinAssignment(moved)], changed);
}

/** The transform: every script just-bash runs in a block whose text may join an array. */
export const starJoinsPlugin: TransformPlugin = {
  name: "xmd-star-joins",
  transform({ ast }): { ast: ScriptNode } {
    replaceCommands(ast, rewritten);
    return { ast };
  },
};
