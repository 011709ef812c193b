/**
 * A redirection that cannot open its file fails its command only, as in
 * bash (WS-154). just-bash opens an output redirection's file (`> out/log`,
 * `>> f`, `&> f`, `<> f`) before the command runs, and its own filesystem
 * creates missing folders, so it never meant that step to fail: when the
 * Workspace refuses it (a missing folder on the way, a file where a folder
 * should be), the refusal escapes as an error and ends every command around
 * it up to the nearest compound command. So `cmd > out/log || echo "cannot
 * write"` never ran its fallback, a function stopped at the line, and in a
 * pipeline the whole pipeline failed. bash fails that one command (message,
 * status 1, the command not run) and goes on.
 *
 * just-bash's group turns such an error into its message and status 1 for
 * the group, and a group runs in the current shell: wrapped in one, the
 * command fails as bash's does, and is otherwise the same command (its
 * assignments, `$?`, `PIPESTATUS`, `$LINENO` and the status it gives an
 * and-or list, `if` or `set -e` are unchanged).
 *
 * Invariants:
 * - Only a command that has such a redirection is wrapped (any command:
 *   simple or compound, in any statement, body, condition, function or
 *   substitution of every script just-bash runs), never `exec`, whose
 *   redirections change the shell for the commands after it and already
 *   fail as a status, nor for a target written as a path under `/dev`.
 * - A script without one is returned as it came.
 *
 * @module
 */
import type { CommandNode, ScriptNode, TransformPlugin, WordNode } from "just-bash";

/** Operators that open a file for writing before the command runs. */
const OPENS_FOR_WRITING: ReadonlySet<string> = new Set([">", ">>", ">|", "&>", "&>>", ">&", "<>"]);

type Group = Extract<CommandNode, { type: "Group" }>;

/** Whether `command` opens a file for writing that may be refused. */
function opensForWriting(command: CommandNode): boolean {
  if (command.type === "FunctionDef") return false;
  if (command.type === "SimpleCommand" && isExec(command)) return false;
  return command.redirections.some((redirection) =>
    OPENS_FOR_WRITING.has(redirection.operator) && redirection.target.type === "Word" &&
    !redirection.fdVariable && !isDevice(redirection.target)
  );
}

/** Whether `word` is written as a path under `/dev` (`/dev/null`, a stream): never refused. */
function isDevice(word: WordNode): boolean {
  const part = word.parts.length === 1 ? word.parts[0] : undefined;
  return part?.type === "Literal" && part.value.startsWith("/dev/");
}

function isExec(command: Extract<CommandNode, { type: "SimpleCommand" }>): boolean {
  const part = command.name?.parts.length === 1 ? command.name.parts[0] : undefined;
  return part?.type === "Literal" && part.value === "exec";
}

/** The commands already wrapped: the walk meets each again inside its group. */
const wrapped = new WeakSet<CommandNode>();

/** `{ command; }`, as one command in its pipeline's place. */
function grouped(command: CommandNode): Group {
  wrapped.add(command);
  const line = command.line;
  return {
    type: "Group",
    line,
    body: [{
      type: "Statement",
      line,
      pipelines: [{ type: "Pipeline", line, commands: [command], negated: false }],
      operators: [],
      background: false,
    }],
    redirections: [],
  };
}

/** Wraps, in place, every command under `root` that opens a file for writing. */
function wrapUnder(root: object): void {
  const stack: object[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as { type?: unknown; commands?: CommandNode[] };
    if (node.type === "Pipeline" && node.commands) {
      node.commands = node.commands.map((command) =>
        !wrapped.has(command) && opensForWriting(command) ? grouped(command) : command
      );
    }
    for (const child of Object.values(node)) {
      if (child !== null && typeof child === "object") stack.push(child);
    }
  }
}

/** The transform: every script just-bash runs, the block's and the ones its commands run. */
export const redirectFailuresPlugin: TransformPlugin = {
  name: "xmd-redirect-failures",
  transform({ ast }): { ast: ScriptNode } {
    wrapUnder(ast);
    return { ast };
  },
};
