/**
 * Pieces of just-bash's syntax tree that Worker Shell's transforms share:
 * reading a word's literal text, whether a command reads `$?`, a command as
 * a statement of its own, a command run after an assignment in a group,
 * and a walk that replaces each command of every pipeline.
 *
 * @module
 */
import type { CommandNode, StatementNode, WordNode } from "just-bash";

type Simple = Extract<CommandNode, { type: "SimpleCommand" }>;

/** An assignment of a command that only assigns. */
export type AssignmentNode = Simple["assignments"][number];

/** The text of `word` when it is one literal. */
export function literalOf(word: WordNode | null): string | undefined {
  const part = word?.parts.length === 1 ? word.parts[0] : undefined;
  return part?.type === "Literal" ? part.value : undefined;
}

/** Whether anything under `node` expands `$?`. */
export function readsStatus(node: object): boolean {
  const stack: object[] = [node];
  while (stack.length > 0) {
    const value = stack.pop() as { type?: unknown; parameter?: unknown };
    if (value.type === "ParameterExpansion" && value.parameter === "?") return true;
    for (const child of Object.values(value)) {
      if (child !== null && typeof child === "object") stack.push(child);
    }
  }
  return false;
}

/** `command` as a statement of its own. */
export function statementOf(command: CommandNode, line: number | undefined): StatementNode {
  return {
    type: "Statement",
    line,
    pipelines: [{ type: "Pipeline", line, commands: [command], negated: false }],
    operators: [],
    background: false,
  };
}

/** `{ ASSIGNMENTS; command; }`, in `command`'s place: a group runs in the current shell. */
export function afterAssigning(assignments: AssignmentNode[], command: CommandNode): CommandNode {
  const line = command.line;
  const assigning: Simple = {
    type: "SimpleCommand",
    line,
    name: null,
    args: [],
    assignments,
    redirections: [],
  };
  return {
    type: "Group",
    line,
    body: [statementOf(assigning, line), statementOf(command, line)],
    redirections: [],
  };
}

/** Replaces, in place, each command of every pipeline under `root` with `replace`'s answer. */
export function replaceCommands(
  root: object,
  replace: (command: CommandNode) => CommandNode,
): void {
  const stack: object[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as { type?: unknown; commands?: CommandNode[] };
    if (node.type === "Pipeline" && node.commands) node.commands = node.commands.map(replace);
    for (const child of Object.values(node)) {
      if (child !== null && typeof child === "object") stack.push(child);
    }
  }
}
