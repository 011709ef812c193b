/**
 * `$(<FILE)` says why it read nothing, as in bash (WS-182): a file that is
 * missing or cannot be read writes `bash: FILE: No such file or directory`
 * (the refusal's words) and the substitution's status is 1, so
 * `config=$(<config.json)` tells the block that `config.json` is not there.
 * just-bash reads `$(<FILE)` without running a command, and its shortcut
 * swallowed the refusal: the value was empty and nothing was written.
 *
 * Before a script whose text may hold one runs, this transform gives each
 * such substitution the command `command cat` (past any function named
 * `cat`, as bash's `$(<FILE)` runs none), so just-bash opens the file as the
 * redirection of a command and reports its refusal as it does for any
 * other; the value is the file's text with its final newlines removed, as
 * before.
 *
 * Invariants:
 * - Only the form just-bash reads without a command is changed: a body of
 *   one command with no name, no argument, no assignment and one `<`
 *   redirection. `$(</dev/null)` (which Worker Shell's own transforms
 *   write) is left to the shortcut.
 * - A folder read so fails too (the Workspace opens no folder for reading),
 *   where bash gives an empty value and status 0.
 *
 * @module
 */
import type { CommandNode, ScriptNode, TransformPlugin, WordNode } from "just-bash";
import { literalOf } from "./worker-shell-ast.ts";

type SimpleCommand = Extract<CommandNode, { type: "SimpleCommand" }>;

/** A script whose text may hold `$(<FILE)`. */
export const MAY_READ_SUBSTITUTION = /\$\(\s*</;

function literal(value: string): WordNode {
  return { type: "Word", parts: [{ type: "Literal", value }] } as WordNode;
}

/** The command of `body` when just-bash would read it as `$(<FILE)`. */
function readsFile(body: ScriptNode): SimpleCommand | undefined {
  if (body.statements.length !== 1) return undefined;
  const [statement] = body.statements;
  if (statement.operators.length !== 0 || statement.pipelines.length !== 1) return undefined;
  const [pipeline] = statement.pipelines;
  if (pipeline.negated || pipeline.commands.length !== 1) return undefined;
  const [command] = pipeline.commands;
  if (command.type !== "SimpleCommand" || command.name !== null) return undefined;
  if (command.args.length !== 0 || command.assignments.length !== 0) return undefined;
  if (command.redirections.length !== 1) return undefined;
  const [redirection] = command.redirections;
  if (redirection.operator !== "<" || redirection.target.type !== "Word") return undefined;
  return literalOf(redirection.target) === "/dev/null" ? undefined : command;
}

/** Gives, in place, every `$(<FILE)` under `root` the command `command cat`. */
function readWithCat(root: object): void {
  const stack: object[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as { type?: unknown; body?: unknown };
    if (node.type === "CommandSubstitution") {
      const command = readsFile(node.body as ScriptNode);
      if (command) {
        command.name = literal("command");
        command.args = [literal("cat")];
      }
    }
    for (const child of Object.values(node)) {
      if (child !== null && typeof child === "object") stack.push(child);
    }
  }
}

/** The transform (stateless): every script just-bash runs whose text may need it. */
export const readSubstitutionPlugin: TransformPlugin = {
  name: "xmd-read-substitution",
  transform({ ast }): { ast: ScriptNode } {
    readWithCat(ast);
    return { ast };
  },
};
