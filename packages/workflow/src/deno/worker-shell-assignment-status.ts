/**
 * The status of a command that only assigns. In bash, `x=1` ends with status
 * 0 (or the status of the last command substitution in it); just-bash gives
 * it the status of the command before it. So `false; x=1; echo $?` printed
 * 1, and under `set -e` any assignment after a failure the script had gone
 * on after ended the script: `[ -n "$DEBUG" ] && set -x; x=1` (the `&&`
 * list's status), `cmd || rc=$?`, the first assignment of an `else` or loop
 * body, of a function called as `cmd || f`, or after `! cmd` (WS-150,
 * WS-168).
 *
 * Before a block runs, this transform appends an empty command substitution
 * to such an assignment's last value, `x=1$(</dev/null)`: it is expanded
 * after everything before it (so `rc=$?` still reads `cmd`'s status),
 * expands to nothing, and leaves status 0, which the command then ends
 * with. just-bash reads `$(< file)` without running a command, and
 * `/dev/null` is the interpreter's own, so it costs a few microseconds. An
 * assignment whose last value is an array (`a=(…)`) gets
 * `__xmd_zero=$(</dev/null)` after it instead.
 *
 * Invariants:
 * - Only an assignment alone (no command word, no redirection, no command
 *   substitution of its own, whose status is that substitution's) is
 *   changed, in every script just-bash runs. Everything else runs as
 *   written.
 * - What is assigned is unchanged, and so is what `set -x` traces but for
 *   an array's `__xmd_zero` (a name of its own: the other transforms keep
 *   a status in `__xmd_status`).
 *
 * @module
 */
import type { CommandNode, PipelineNode, ScriptNode, TransformPlugin } from "just-bash";
import { statementOf } from "./worker-shell-ast.ts";

type SimpleCommand = Extract<CommandNode, { type: "SimpleCommand" }>;
type Assignment = SimpleCommand["assignments"][number];
type Part = NonNullable<Assignment["value"]>["parts"][number];

/** `$(</dev/null)`: a command substitution that expands to nothing and leaves status 0. */
function emptySubstitution(): Part {
  const readsNull: CommandNode = {
    type: "SimpleCommand",
    assignments: [],
    name: null,
    args: [],
    redirections: [{
      type: "Redirection",
      fd: null,
      operator: "<",
      target: { type: "Word", parts: [{ type: "Literal", value: "/dev/null" }] },
    }],
  };
  return {
    type: "CommandSubstitution",
    body: { type: "Script", statements: [statementOf(readsNull, undefined)] },
    legacy: false,
  } as Part;
}

/** `assignment` with status 0 after it: its value ends with the empty substitution. */
function zeroed(assignment: Assignment): Assignment[] {
  if (assignment.array !== null) {
    return [assignment, {
      type: "Assignment",
      name: "__xmd_zero",
      append: false,
      array: null,
      value: { type: "Word", parts: [emptySubstitution()] },
    }];
  }
  const parts = assignment.value?.parts ?? [];
  return [{ ...assignment, value: { type: "Word", parts: [...parts, emptySubstitution()] } }];
}

function holdsSubstitution(node: object): boolean {
  const stack: object[] = [node];
  while (stack.length > 0) {
    const value = stack.pop() as { type?: unknown };
    if (value.type === "CommandSubstitution") return true;
    for (const child of Object.values(value)) {
      if (child !== null && typeof child === "object") stack.push(child);
    }
  }
  return false;
}

/** Gives `pipeline`'s command status 0 when it is an assignment alone. */
function fix(pipeline: PipelineNode): void {
  if (pipeline.commands.length !== 1) return;
  const command = pipeline.commands[0];
  if (
    command.type !== "SimpleCommand" || command.name !== null ||
    command.assignments.length === 0 || command.redirections.length > 0 ||
    holdsSubstitution(command)
  ) return;
  const last = command.assignments.length - 1;
  command.assignments = [
    ...command.assignments.slice(0, last),
    ...zeroed(command.assignments[last]),
  ];
}

/** Fixes, in place, every assignment alone under `script`. */
function fixAll(script: ScriptNode): void {
  const stack: object[] = [script];
  while (stack.length > 0) {
    const value = stack.pop() as { type?: unknown };
    if (value.type === "Pipeline") fix(value as PipelineNode);
    for (const child of Object.values(value)) {
      if (child !== null && typeof child === "object") stack.push(child);
    }
  }
}

/** The transform (stateless: one object serves every block). */
export const assignmentStatusPlugin: TransformPlugin = {
  name: "xmd-assignment-status",
  transform({ ast }): { ast: ScriptNode } {
    fixAll(ast);
    return { ast };
  },
};
