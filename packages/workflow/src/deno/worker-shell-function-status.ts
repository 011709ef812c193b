/**
 * Under `set -e`, a function that returns a failure ends the script where
 * it is called as a command of its own, as in bash, also when that failure
 * came from a part of its body bash exempts (WS-179):
 *
 *     set -e
 *     log() { [ "$VERBOSE" = 1 ] && echo "log: $*"; }
 *     log start      # bash ends the script here (status 1)
 *
 * bash exempts the `[ … ]` inside the `&&` list, so `log` returns its
 * status 1, and the call, a simple command, ends the script. just-bash
 * remembers that the last statement it ran was exempt and lets that reach
 * the statement around it, the function's call included, so the script
 * went on. That is right for a group, `if`, loop or `case` (bash does not
 * end the script for a compound command whose status came from an exempt
 * failure) but not for a function, whose status bash checks at its call.
 *
 * Before a script that may turn errexit on runs, this transform appends
 * `return $?` to each function body whose last statement may leave that
 * memory: an `&&`/`||` list, a negated pipeline, a compound command, or a
 * call of `eval`, `source` or `.`. `return` runs as a statement of its own,
 * which just-bash starts with no exemption, and passes on the body's status.
 *
 * The text of `eval` or `source` and a script run by its path are checked
 * the same way at the command that ran them: when its last statement may
 * leave that memory, such a script ends with `(exit $?)`
 * ({@linkcode parsedStatusPlugin}), so `set -e; . ./env.sh` whose last line
 * is `[ -n "$DEBUG" ] && set -x` ends the script, as in bash.
 *
 * Invariants:
 * - The function's status, output and `$?` are unchanged; just-bash does not
 *   trace `return` under `set -x` (bash would trace `return N`).
 * - A body that is not a `{ … }` group (`f() ( … )`, a subshell, already
 *   ends its own exemption) and one whose last statement is a plain command
 *   run as written.
 *
 * @module
 */
// The interpreter runs with no configuration file, so its import names the exact version.
// deno-lint-ignore no-import-prefix
import { parse } from "npm:just-bash@3.4.2";
import type { CommandNode, ScriptNode, StatementNode, TransformPlugin } from "just-bash";
import { literalOf } from "./worker-shell-ast.ts";

type FunctionDef = Extract<CommandNode, { type: "FunctionDef" }>;

/** Commands whose statements run in the caller's shell, as a function's do. */
const RUNS_STATEMENTS = new Set(["eval", "source", "."]);

const RETURN_STATUS = parse("return $?").statements[0];

/** Whether `statement` may leave just-bash's memory of an exempt failure behind it. */
function mayLeaveExemption(statement: StatementNode): boolean {
  if (statement.pipelines.length > 1) return true;
  return statement.pipelines.some((pipeline) =>
    pipeline.negated ||
    pipeline.commands.some((command) =>
      command.type !== "SimpleCommand" || RUNS_STATEMENTS.has(literalOf(command.name) ?? "")
    )
  );
}

/** Appends, in place, `return $?` to every function body under `root` that needs it. */
function returnStatuses(root: object): void {
  const stack: object[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as { type?: unknown };
    if (node.type === "FunctionDef") {
      const body = (node as FunctionDef).body;
      if (body.type === "Group") {
        const last = body.body.at(-1);
        if (last && !last.background && mayLeaveExemption(last)) {
          body.body.push(structuredClone(RETURN_STATUS));
        }
      }
    }
    for (const child of Object.values(node)) {
      if (child !== null && typeof child === "object") stack.push(child);
    }
  }
}

const EXIT_STATUS = parse("(exit $?)").statements[0];

/**
 * The transform for the scripts just-bash parses itself (the text of `eval`,
 * a sourced file, a script run by its path): their status is checked at the
 * command that ran them, as a function's is, so one whose last statement may
 * leave an exemption ends with `(exit $?)`, a statement of its own that
 * keeps the status (`return` would leave the function around an `eval`).
 * just-bash does not trace it under `set -x`.
 */
export const parsedStatusPlugin: TransformPlugin = {
  name: "xmd-parsed-status",
  transform({ ast }): { ast: ScriptNode } {
    const last = ast.statements.at(-1);
    if (!last || last.background || !mayLeaveExemption(last)) return { ast };
    return { ast: { ...ast, statements: [...ast.statements, structuredClone(EXIT_STATUS)] } };
  },
};

/** The transform (stateless): every script just-bash runs that may turn errexit on. */
export const functionStatusPlugin: TransformPlugin = {
  name: "xmd-function-status",
  transform({ ast }): { ast: ScriptNode } {
    returnStatuses(ast);
    return { ast };
  },
};
