/**
 * Streaming Worker Shell's output. `just-bash` hands a script's output back
 * only when `exec` ends, but it writes a redirection's target as soon as the
 * redirected command finishes. So, before the script runs, this transform
 * wraps each top-level statement as `{ statement; } >>STDOUT 2>>STDERR`,
 * where STDOUT and STDERR are two stream devices the Worker's filesystem
 * forwards to the host instead of the Workspace. A top-level loop, `if`,
 * `case` or group without redirections of its own is also entered: each
 * statement of an `if`, `case` or group body, and of an `if`'s or a `while`
 * or `until` loop's condition, is wrapped the same way, and a loop's whole
 * body is (one wrapper per iteration), so each iteration's output streams
 * too, and so do a nested loop's; a condition's output streams before the
 * body it chooses (WS-148).
 *
 * Invariants:
 * - The wrapping changes nothing a script can observe: a group is not a
 *   subshell (assignments, functions, `cd`, `set`, traps and `exit` behave
 *   as before), `$?`, `PIPESTATUS` and `$LINENO` are unchanged, and the
 *   statement's own redirections still apply inside the group.
 * - Nothing inside a function body, a pipeline, a command substitution or a
 *   redirected compound command is wrapped: their output is not the block's
 *   until they end.
 * - Output that no wrapper caught (e.g. written just before `exit` in the
 *   middle of a statement) still arrives with the block's result.
 * - Only the block's own script is wrapped. just-bash runs each script it is
 *   given through its transforms, including the ones a command runs
 *   (`xargs`, `find -exec`, `bash -c`, `timeout`, `env`): their output is that
 *   command's, read by its pipe or its caller, so wrapping it would send it
 *   past them to the block's output. A transform is made per block and wraps
 *   the first script it sees, the block's, and no other.
 *
 * @module
 */
import type { CommandNode, ScriptNode, StatementNode, TransformPlugin } from "just-bash";

/** The stream devices: paths the Worker's filesystem never sends to the Workspace. */
export const STREAM_DEVICES = { stdout: "/dev/xmd/stdout", stderr: "/dev/xmd/stderr" } as const;

/** The stream a device path names, if it names one. */
export function streamOf(path: string): "stdout" | "stderr" | undefined {
  if (path === STREAM_DEVICES.stdout) return "stdout";
  if (path === STREAM_DEVICES.stderr) return "stderr";
  return undefined;
}

type Group = Extract<CommandNode, { type: "Group" }>;
type Redirection = Group["redirections"][number];

function appendTo(fd: 1 | 2, path: string): Redirection {
  return {
    type: "Redirection",
    fd,
    operator: ">>",
    target: { type: "Word", parts: [{ type: "Literal", value: path }] },
  };
}

/** A group of `body` with `redirections`, as one statement. */
function groupStatement(
  body: StatementNode[],
  redirections: Redirection[],
  line: number | undefined,
): StatementNode {
  const group: Group = { type: "Group", line, body, redirections };
  return {
    type: "Statement",
    line,
    pipelines: [{ type: "Pipeline", line, commands: [group], negated: false }],
    operators: [],
    background: false,
  };
}

/** How a statement run once (or a loop's iteration) is wrapped. */
type Wrap = (body: StatementNode[], line: number | undefined) => StatementNode;

/** `{ body; } >>STDOUT 2>>STDERR`: just-bash writes the group's stdout, then its stderr. */
const stdoutFirst: Wrap = (body, line) =>
  groupStatement(
    body,
    [appendTo(1, STREAM_DEVICES.stdout), appendTo(2, STREAM_DEVICES.stderr)],
    line,
  );

/** `{ { body; } 2>>STDERR; } >>STDOUT`: the inner group's stderr is written when it ends, first. */
const stderrFirst: Wrap = (body, line) =>
  groupStatement(
    [groupStatement(body, [appendTo(2, STREAM_DEVICES.stderr)], line)],
    [appendTo(1, STREAM_DEVICES.stdout)],
    line,
  );

/** The one compound command a statement consists of, when its body may be entered. */
function enterable(statement: StatementNode): CommandNode | undefined {
  // A background statement, or one holding a deferred syntax error, runs as written.
  if (statement.background || statement.deferredError) return undefined;
  if (statement.pipelines.length !== 1) return undefined;
  const pipeline = statement.pipelines[0];
  if (pipeline.commands.length !== 1 || pipeline.negated || pipeline.timed) return undefined;
  const command = pipeline.commands[0];
  if (command.type === "SimpleCommand" || command.type === "FunctionDef") return undefined;
  return command.redirections.length === 0 ? command : undefined;
}

type Loop = Extract<CommandNode, { type: "For" | "CStyleFor" | "While" | "Until" }>;

function isLoop(command: CommandNode): command is Loop {
  return command.type === "For" || command.type === "CStyleFor" || command.type === "While" ||
    command.type === "Until";
}

/**
 * Streams what a compound command runs: a loop's output after each iteration
 * (its body becomes one redirected group: one redirection per iteration,
 * whatever the body holds), an `if`, `case` or group's after each of its
 * statements.
 */
function enter(command: CommandNode, wrap: Wrap): void {
  if (isLoop(command)) {
    // A condition's output comes before its iteration's: it streams before the body runs.
    if (command.type === "While" || command.type === "Until") {
      command.condition = command.condition.map((statement) => stream(statement, wrap));
    }
    command.body = [
      wrap(command.body.map((statement) => enterLoops(statement, wrap)), command.line),
    ];
    return;
  }
  switch (command.type) {
    case "Group":
      command.body = command.body.map((statement) => stream(statement, wrap));
      return;
    case "If":
      // A condition streams too: its output would otherwise arrive with the `if`'s result,
      // after the output its chosen body had already streamed.
      for (const clause of command.clauses) {
        clause.condition = clause.condition.map((statement) => stream(statement, wrap));
        clause.body = clause.body.map((statement) => stream(statement, wrap));
      }
      if (command.elseBody) {
        command.elseBody = command.elseBody.map((statement) => stream(statement, wrap));
      }
      return;
    case "Case":
      for (const item of command.items) {
        item.body = item.body.map((statement) => stream(statement, wrap));
      }
      return;
  }
}

/** Inside an iteration, only a nested loop is entered (its iterations stream too). */
function enterLoops(statement: StatementNode, wrap: Wrap): StatementNode {
  const command = enterable(statement);
  if (command && isLoop(command)) enter(command, wrap);
  return statement;
}

/** A statement run once: entered if it can be, then wrapped. */
function stream(statement: StatementNode, wrap: Wrap): StatementNode {
  if (statement.deferredError) return statement;
  // just-bash runs a background statement to its end before the next: its output streams then.
  if (statement.background) return wrap([statement], statement.line);
  const command = enterable(statement);
  if (command) enter(command, wrap);
  return wrap([statement], statement.line);
}

/** A block whose text may turn xtrace on: `set -x`, `set -euxo pipefail`, `set -o xtrace`, … */
export const MAY_SET_XTRACE = /\bset\b[^\n;|&]*(?:\s[-+][A-Za-z]*x|xtrace)|\bSHELLOPTS\b/;

/**
 * The transform for one block's `Bash`: it wraps the block's script, the
 * first it sees, and leaves the scripts its commands run as they are. With
 * `traceFirst` (a block that may turn xtrace on), each statement's stderr
 * streams before its stdout, so `set -x`'s trace of a command comes before
 * the command's output, as in bash (WS-167).
 */
export function streamingPlugin(traceFirst = false): TransformPlugin {
  const wrap = traceFirst ? stderrFirst : stdoutFirst;
  let block = true;
  return {
    name: "xmd-stream-output",
    transform({ ast }): { ast: ScriptNode } {
      if (!block) return { ast };
      block = false;
      return {
        ast: { ...ast, statements: ast.statements.map((statement) => stream(statement, wrap)) },
      };
    },
  };
}
