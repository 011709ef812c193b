/**
 * A command whose name is an expansion that can give several words runs
 * the first of them with the rest as its first arguments, as in bash
 * (WS-174): `"$@"` in a function that runs its arguments (`retry`, `check`,
 * `run_quiet`), `"${cmd[@]}"` of an array holding a command line, and an
 * unquoted `$CMD` holding one.
 *
 * just-bash expands a command's name to one string, so `f() { "$@"; }; f
 * ls -l` looked for a command named `ls -l` and failed with status 127
 * ("command not found"); its arguments are expanded as bash does. When
 * the name expands to nothing and is made only of expansions, just-bash
 * takes the first argument as the command.
 *
 * Before a block runs, this transform makes such a command's name the
 * first of its arguments and gives it the name `${__xmd_command-}`, an
 * expansion that gives nothing: just-bash then expands the old name with
 * the arguments, into words, and runs the first.
 *
 * Invariants:
 * - Only a name that can give several words is moved: one holding `"$@"`,
 *   `"${name[@]}"` (with or without an operation) or an unquoted parameter
 *   or command substitution. A literal or quoted name runs as written, and
 *   so do `local`, `declare` and the other names just-bash reads as
 *   written.
 * - With no word at all (`"$@"` of no arguments), just-bash runs nothing and
 *   the status is the one before it (bash: 0).
 *
 * @module
 */
import type { CommandNode, ScriptNode, TransformPlugin, WordNode } from "just-bash";
import { replaceCommands } from "./worker-shell-ast.ts";

type Part = WordNode["parts"][number];

/** Whether `part` (inside double quotes when `quoted`) can expand to several words. */
function splits(part: Part, quoted: boolean): boolean {
  switch (part.type) {
    case "DoubleQuoted":
      return part.parts.some((inner) => splits(inner, true));
    case "ParameterExpansion":
      return !quoted || part.parameter === "@" || /\[@\]$/.test(part.parameter);
    case "CommandSubstitution":
      return !quoted;
    default:
      return false;
  }
}

/** `${__xmd_command-}`: an expansion that gives nothing, even under `set -u`. */
function nothing(): WordNode {
  return {
    type: "Word",
    parts: [{
      type: "ParameterExpansion",
      parameter: "__xmd_command",
      operation: {
        type: "DefaultValue",
        word: { type: "Word", parts: [{ type: "Literal", value: "" }] },
        checkEmpty: false,
      },
    }],
  } as WordNode;
}

/** The names moved already: the walk meets each command again. */
const moved = new WeakSet<WordNode>();

function rewritten(command: CommandNode): CommandNode {
  if (command.type !== "SimpleCommand" || command.name === null || moved.has(command.name)) {
    return command;
  }
  if (!command.name.parts.some((part) => splits(part, false))) return command;
  const name = nothing();
  moved.add(name);
  return { ...command, name, args: [command.name, ...command.args] };
}

/** The transform (stateless but for the names it made): every script just-bash runs. */
export const commandWordsPlugin: TransformPlugin = {
  name: "xmd-command-words",
  transform({ ast }): { ast: ScriptNode } {
    replaceCommands(ast, rewritten);
    return { ast };
  },
};
