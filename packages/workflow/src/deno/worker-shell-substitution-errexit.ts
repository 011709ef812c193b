/**
 * A command substitution does not inherit `set -e`, as in bash (WS-170).
 * bash, outside POSIX mode and without `shopt -s inherit_errexit`, runs
 * `$( … )` with errexit off: `set -e; v=$(false; echo fallback)` assigns
 * `fallback` and goes on, `$(f)` runs all of `f`, and `$-` inside has no
 * `e`. just-bash's substitution inherits it (and its `shopt` does not keep
 * `inherit_errexit`), so the substitution stopped at its first failure and,
 * as the assignment's status was then that failure's, ended the script.
 *
 * Before a block that can turn errexit on runs, this transform makes each
 * command substitution's script `( set +e; script )`. The subshell keeps
 * the `set +e` (and any `set` of the script's own) inside: just-bash lets
 * a substitution's `set` reach the shell around it, so `x=$(set +e; …)`
 * turned errexit off for the rest of the block. When the script reads `$?`
 * (which starts as the status before the substitution),
 * `printf -v __xmd_subst_status %s "$?"` comes before the `set +e` and
 * `(exit $__xmd_subst_status) && :` after it, so `$?` still reads that
 * status.
 *
 * Invariants:
 * - Only a block whose text can turn errexit on and names neither
 *   `inherit_errexit` nor POSIX mode is changed; there the substitution
 *   inherits, as just-bash's does and as bash's does with them.
 * - A substitution that only reads a file (`$(< file)`, which just-bash
 *   reads without running a script) and an empty one are left as written;
 *   so is a process substitution.
 * - A `set -e` inside the substitution still turns errexit on there.
 *
 * @module
 */
import type { ScriptNode, StatementNode, TransformPlugin, WordNode } from "just-bash";
import { readsStatus, statementOf } from "./worker-shell-ast.ts";

/** A block whose text asks that substitutions inherit errexit: bash's own switches for it. */
export const INHERITS_ERREXIT = /inherit_errexit|\bposix\b|POSIXLY_CORRECT/;

type Substitution = { type: "CommandSubstitution"; body: ScriptNode };

function simple(name: string, args: string[]): StatementNode {
  const word = (value: string): WordNode => ({ type: "Word", parts: [{ type: "Literal", value }] });
  return statementOf(
    {
      type: "SimpleCommand",
      assignments: [],
      name: word(name),
      args: args.map(word),
      redirections: [],
    },
    undefined,
  );
}

/** `printf -v __xmd_subst_status %s "$?"`. */
function saveStatus(): StatementNode {
  const statement = simple("printf", ["-v", "__xmd_subst_status", "%s"]);
  const command = statement.pipelines[0].commands[0];
  if (command.type === "SimpleCommand") {
    command.args.push({
      type: "Word",
      parts: [{
        type: "DoubleQuoted",
        parts: [{ type: "ParameterExpansion", parameter: "?", operation: null }],
      }],
    });
  }
  return statement;
}

/** `(exit $__xmd_subst_status) && :`. */
function restoreStatus(): StatementNode {
  const exit = simple("exit", []);
  const exitCommand = exit.pipelines[0].commands[0];
  if (exitCommand.type === "SimpleCommand") {
    exitCommand.args.push({
      type: "Word",
      parts: [{ type: "ParameterExpansion", parameter: "__xmd_subst_status", operation: null }],
    });
  }
  const colon = simple(":", []);
  return {
    type: "Statement",
    pipelines: [
      {
        type: "Pipeline",
        commands: [{ type: "Subshell", body: [exit], redirections: [] }],
        negated: false,
      },
      colon.pipelines[0],
    ],
    operators: ["&&"],
    background: false,
  } as StatementNode;
}

/** Whether `script` only reads a file (`< file`): just-bash's fast path, no script run. */
function onlyReads(script: ScriptNode): boolean {
  const statement = script.statements.length === 1 ? script.statements[0] : undefined;
  const command = statement?.pipelines.length === 1 && statement.pipelines[0].commands.length === 1
    ? statement.pipelines[0].commands[0]
    : undefined;
  return command?.type === "SimpleCommand" && command.name === null &&
    command.assignments.length === 0 && command.redirections.length === 1;
}

/** Turns errexit off first in every command substitution under `root`, in place. */
function disinherit(root: object): void {
  const stack: object[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as { type?: unknown };
    if (node.type === "CommandSubstitution") {
      const body = (node as Substitution).body;
      if (body.statements.length > 0 && !onlyReads(body)) {
        const reads = readsStatus(body);
        const inner = [
          ...(reads ? [saveStatus()] : []),
          simple("set", ["+e"]),
          ...(reads ? [restoreStatus()] : []),
          ...body.statements,
        ];
        body.statements = [{
          type: "Statement",
          pipelines: [{
            type: "Pipeline",
            commands: [{ type: "Subshell", body: inner, redirections: [] }],
            negated: false,
          }],
          operators: [],
          background: false,
        } as StatementNode];
      }
    }
    for (const child of Object.values(node)) {
      if (child !== null && typeof child === "object") stack.push(child);
    }
  }
}

/** The transform (stateless): every script just-bash runs in such a block. */
export const substitutionErrexitPlugin: TransformPlugin = {
  name: "xmd-substitution-errexit",
  transform({ ast }): { ast: ScriptNode } {
    disinherit(ast);
    return { ast };
  },
};
