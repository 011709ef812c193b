/**
 * A compound command whose redirections send stdout and stderr to one place
 * keeps the order of its commands' output, as in bash (WS-166):
 * `{ make; make test; } 2>&1 | tee log`, `x=$( { a; b; } 2>&1 )`,
 * `for f in *; do …; done &> log`, `if …; fi >&2`.
 *
 * just-bash keeps a command's stdout and stderr as two strings and applies
 * a compound command's redirections to what its whole body wrote, so
 * `{ echo a; echo b >&2; echo c; } 2>&1` gave `a c b`: every line the body
 * wrote to stderr came after all of its stdout. bash writes each line where
 * it goes as it is written.
 *
 * When a compound command's redirections, applied in order to a table where
 * stdout and stderr differ, leave the two descriptors naming the same
 * place, this transform gives each command its body runs (and each command
 * of its conditions) a `2>&1` before its own redirections: each command's
 * stderr joins its stdout as that command ends, and the body's output is in
 * the order its commands ran. Where that one place is, the compound
 * command's own redirections still decide.
 *
 * Invariants:
 * - Only the last command of a pipeline gets it: the others write their
 *   stderr to the compound command's, not into the pipe, as in bash (their
 *   lines still come after the body's stdout).
 * - A function's body is not changed where the function is called (`f
 *   2>&1`), nor a command substitution's: their output keeps just-bash's
 *   order. A function whose definition carries the redirections (`f() { …;
 *   } 2>&1`) is changed in its body.
 * - `exec` is never given one (its redirections would outlive the command),
 *   nor is a function definition.
 * - Within one command, its stdout still comes before its stderr.
 * - A script without such a compound command is returned as it came.
 *
 * @module
 */
import type { CommandNode, ScriptNode, StatementNode, TransformPlugin } from "just-bash";
import { literalOf } from "./worker-shell-ast.ts";

type Redirection = Extract<CommandNode, { type: "Group" }>["redirections"][number];

/** The descriptor a redirection operator acts on when none is written. */
function defaultFd(operator: string): number {
  return operator.startsWith("<") ? 0 : 1;
}

/**
 * Whether `redirections`, applied in order to stdout and stderr naming two
 * places, leave them naming one.
 */
export function mergesStreams(redirections: readonly Redirection[]): boolean {
  let places = 0;
  const table = new Map<number, number>([[1, ++places], [2, ++places]]);
  for (const redirection of redirections) {
    if (redirection.fdVariable) continue;
    const { operator, target } = redirection;
    const fd = redirection.fd ?? defaultFd(operator);
    const text = target.type === "Word" ? literalOf(target) : undefined;
    if (operator === "&>" || operator === "&>>") {
      const place = ++places;
      table.set(1, place).set(2, place);
    } else if (
      (operator === ">&" || operator === "<&") && text !== undefined && /^\d+$/.test(text)
    ) {
      table.set(fd, table.get(Number(text)) ?? ++places);
    } else if (operator === ">&" && redirection.fd === null && text !== "-") {
      // `>&file` is `&>file`; an unknown target (`>&$fd`) names a place of its own.
      const place = ++places;
      if (text !== undefined) table.set(1, place).set(2, place);
      else table.set(1, place);
    } else if (fd === 1 || fd === 2) {
      table.set(fd, ++places);
    }
  }
  return table.get(1) === table.get(2);
}

/** `2>&1`. */
function stderrToStdout(): Redirection {
  return {
    type: "Redirection",
    fd: 2,
    operator: ">&",
    target: { type: "Word", parts: [{ type: "Literal", value: "1" }] },
  };
}

/** The statement lists a compound command's own redirections apply to. */
function bodiesOf(command: CommandNode): StatementNode[][] {
  switch (command.type) {
    case "If":
      return [
        ...command.clauses.flatMap((clause) => [clause.condition, clause.body]),
        ...(command.elseBody ? [command.elseBody] : []),
      ];
    case "While":
    case "Until":
      return [command.condition, command.body];
    case "For":
    case "CStyleFor":
    case "Subshell":
    case "Group":
      return [command.body];
    case "Case":
      return command.items.map((item) => item.body);
    case "FunctionDef":
      return bodiesOf(command.body);
    default:
      return [];
  }
}

function isExec(command: CommandNode): boolean {
  return command.type === "SimpleCommand" && command.name !== null &&
    literalOf(command.name) === "exec";
}

type Pipeline = StatementNode["pipelines"][number];

/** The groups this transform made: the walk does not enter them again. */
const made = new WeakSet<CommandNode>();

/** `{ pipeline; } 2>&1`, as a pipeline of its own in the pipeline's place. */
function grouped(pipeline: Pipeline): Pipeline {
  const line = pipeline.line;
  const group: CommandNode = {
    type: "Group",
    line,
    body: [{
      type: "Statement",
      line,
      pipelines: [{ ...pipeline, negated: false, timed: false, timePosix: false }],
      operators: [],
      background: false,
    }],
    redirections: [stderrToStdout()],
  };
  made.add(group);
  return { ...pipeline, commands: [group], pipeStderr: undefined };
}

/** Gives `command` a `2>&1` before its own redirections, unless it must not have one. */
function mergeLast(pipeline: Pipeline): void {
  const last = pipeline.commands.at(-1);
  if (last && last.type !== "FunctionDef" && !isExec(last)) {
    last.redirections = [stderrToStdout(), ...last.redirections];
  }
}

/**
 * Gives each command `command`'s bodies run a `2>&1`. A pipeline of several
 * commands, and an assignment alone (`x=$(…)`, whose substitution's stderr
 * just-bash drops when the assignment itself is redirected), become a group
 * of their own with one; a pipeline's last command gets one too.
 */
function mergeBodies(command: CommandNode): void {
  for (const body of bodiesOf(command)) {
    for (const statement of body) {
      statement.pipelines = statement.pipelines.map((pipeline) => {
        const only = pipeline.commands.length === 1 ? pipeline.commands[0] : undefined;
        if (only && !isBare(only)) {
          mergeLast(pipeline);
          return pipeline;
        }
        const group = grouped(pipeline);
        if (!only) mergeLast(pipeline);
        return group;
      });
    }
  }
}

/** Whether `command` is a simple command without a name: assignments or redirections alone. */
function isBare(command: CommandNode): boolean {
  return command.type === "SimpleCommand" && command.name === null;
}

/** Gives, in place, each command under `root` that a merging compound command runs a `2>&1`. */
function mergeUnder(root: object): void {
  const stack: object[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as { type?: unknown };
    if (node.type === "Pipeline") {
      // `{ …; } |& cmd` sends the group's stderr where its stdout goes.
      const pipeline = node as Pipeline;
      pipeline.commands.forEach((command, index) => {
        if (pipeline.pipeStderr?.[index]) mergeBodies(command);
      });
    } else if (typeof node.type === "string" && "redirections" in node) {
      const command = node as CommandNode;
      if (
        !made.has(command) && command.redirections.length > 0 && mergesStreams(command.redirections)
      ) {
        mergeBodies(command);
      }
    }
    // Children after their parent: a nested compound command meets its new `2>&1` first.
    for (const child of Object.values(node)) {
      if (child !== null && typeof child === "object") stack.push(child);
    }
  }
}

/** The transform: every script just-bash runs, the block's and the ones its commands run. */
export const mergedStreamsPlugin: TransformPlugin = {
  name: "xmd-merged-streams",
  transform({ ast }): { ast: ScriptNode } {
    mergeUnder(ast);
    return { ast };
  },
};
