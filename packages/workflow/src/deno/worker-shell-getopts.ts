/**
 * `getopts` leaves `OPTIND` set when it finds no more options, as in bash
 * (WS-173). A function that parses its own options declares
 * `local OPTIND`, which leaves it unset; bash's `getopts` then starts at 1
 * and, at the end of the options, sets `OPTIND` to the first operand's
 * index. just-bash's set it only when it had found an option, so with no
 * option given (`parse bob`) `OPTIND` stayed unset: the usual
 * `shift $((OPTIND - 1))` shifted nothing, and under `set -u` it ended the
 * script with `OPTIND: unbound variable`.
 *
 * Before a block whose text names `getopts` runs, each `getopts …` command
 * becomes
 *
 *     { getopts … || { __xmd_getopts=$?; : "${OPTIND:=1}"; (exit "$__xmd_getopts"); }; }
 *
 * which ends with `getopts`'s own status.
 *
 * Invariants:
 * - Only a simple command named `getopts` (written as a literal) is
 *   changed; its words and redirections are its own.
 * - `OPTIND` is given 1 only when it is unset or empty at the end of the
 *   options, which is where bash's `getopts` stands then with no option
 *   read. `__xmd_getopts` is left set.
 *
 * @module
 */
// The interpreter runs with no configuration file, so its import names the exact version.
// deno-lint-ignore no-import-prefix
import { parse } from "npm:just-bash@3.4.2";
import type { CommandNode, ScriptNode, TransformPlugin } from "just-bash";
import { literalOf, replaceCommands } from "./worker-shell-ast.ts";

/** Whether a block's text may run `getopts`. */
export function mayRunGetopts(text: string): boolean {
  return text.includes("getopts");
}

const PLACEHOLDER = "__xmd_getopts_command";

const TEMPLATE =
  `{ ${PLACEHOLDER} || { __xmd_getopts=$?; : "\${OPTIND:=1}"; (exit "$__xmd_getopts"); }; }`;

/** The commands already changed: the walk meets each again inside its group. */
const changed = new WeakSet<CommandNode>();

/** `command` inside the template's group, in the placeholder's place. */
function ending(command: CommandNode): CommandNode {
  const group = parse(TEMPLATE).statements[0].pipelines[0].commands[0];
  if (group.type !== "Group") return command;
  const list = group.body[0];
  const pipeline = list.pipelines[0];
  pipeline.commands = [command];
  changed.add(command);
  return { ...group, line: command.line };
}

function rewritten(command: CommandNode): CommandNode {
  if (command.type !== "SimpleCommand" || changed.has(command)) return command;
  return literalOf(command.name) === "getopts" ? ending(command) : command;
}

/** The transform (stateless but for the commands it changed): every script of such a block. */
export const getoptsPlugin: TransformPlugin = {
  name: "xmd-getopts",
  transform({ ast }): { ast: ScriptNode } {
    replaceCommands(ast, rewritten);
    return { ast };
  },
};
