/**
 * The status of a command that only assigns. In bash, `x=1` ends with status
 * 0 (or the status of the last command substitution in it); just-bash gives
 * it the status of the command before it, so under `set -e` the idiom
 * `cmd || rc=$?` ended the script with `cmd`'s status, and so did an
 * assignment first in an `else` body (`if cmd; then ...; else x=1; fi`) or
 * in an `until` loop's body. Before a block runs, this transform appends
 * `__xmd_status=$(:)` to such an assignment: it is evaluated after the
 * assignments (so `rc=$?` still reads `cmd`'s status), and its command
 * substitution leaves status 0, which the command then ends with.
 *
 * Invariants:
 * - Only an assignment alone (no command word, no redirection, no command
 *   substitution of its own) is changed, and only where the status before
 *   it can be a failure the script goes on after: after `||`, first in an
 *   `else` body, first in an `until` body. Everything else runs as written.
 * - What is assigned is unchanged; the variable `__xmd_status` is set too.
 *
 * @module
 */
import type {
  CommandNode,
  PipelineNode,
  ScriptNode,
  StatementNode,
  TransformPlugin,
} from "just-bash";

type SimpleCommand = Extract<CommandNode, { type: "SimpleCommand" }>;
type Assignment = SimpleCommand["assignments"][number];

/** `__xmd_status=$(:)`: a command substitution that ends with status 0. */
function zeroing(): Assignment {
  return {
    type: "Assignment",
    name: "__xmd_status",
    append: false,
    array: null,
    value: {
      type: "Word",
      parts: [{
        type: "CommandSubstitution",
        body: {
          type: "Script",
          statements: [{
            type: "Statement",
            pipelines: [{
              type: "Pipeline",
              commands: [{
                type: "SimpleCommand",
                assignments: [],
                name: { type: "Word", parts: [{ type: "Literal", value: ":" }] },
                args: [],
                redirections: [],
              }],
              negated: false,
            }],
            operators: [],
            background: false,
          }],
        },
        legacy: false,
      }],
    },
  } as Assignment;
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
  command.assignments.push(zeroing());
}

function fixFirst(body: StatementNode[] | null | undefined): void {
  const first = body?.[0];
  if (first?.pipelines.length === 1) fix(first.pipelines[0]);
}

/** Fixes, in place, every assignment under `script` that follows a failure the script survives. */
function fixAll(script: ScriptNode): void {
  const stack: object[] = [script];
  while (stack.length > 0) {
    const value = stack.pop() as Record<string, unknown> & { type?: unknown };
    if (value.type === "Statement") {
      const statement = value as unknown as StatementNode;
      statement.operators.forEach((operator, i) => {
        if (operator === "||") fix(statement.pipelines[i + 1]);
      });
    } else if (value.type === "If") {
      fixFirst((value as unknown as Extract<CommandNode, { type: "If" }>).elseBody);
    } else if (value.type === "Until") {
      fixFirst((value as unknown as Extract<CommandNode, { type: "Until" }>).body);
    }
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
