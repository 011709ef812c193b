/**
 * bash's `ERR` trap in Worker Shell (WS-184). just-bash has no `trap`, and
 * Worker Shell's (WS-123) refused `ERR` with status 1, so the usual header of
 * a careful script,
 *
 *     set -Eeuo pipefail
 *     trap 'echo "failed at line $LINENO: $BASH_COMMAND" >&2' ERR
 *
 * ended the block at its second line. Now the handler runs as bash runs it:
 * after a command that fails where `set -e` would end the script (whether
 * or not it is set): not in the condition of an `if`, `while` or `until`,
 * not in a part of an `&&`/`||` list but the last, not under `!`, and not
 * inside a function called from such a place. It runs in the shell that
 * failed, with `$?` the failure's status, `$LINENO` the failing command's
 * line and `$BASH_COMMAND` its text (for a function's call, the last
 * command its body ran); then `$?` is that status again, and
 * under `set -e` the script ends after the handler, with its status unless
 * the handler `exit`s.
 *
 * The interpreter's `executeStatement` (worker-shell-interpreter.ts) is
 * wrapped: when a statement ends with a failure that just-bash does not
 * count as exempt (its own memory of the `&&`/`||`/`!` exemptions, and of
 * being in a condition), or ends the script under `set -e`, the handler's
 * text is parsed and run by the same interpreter, and its output follows
 * the statement's.
 *
 * Invariants:
 * - The handler runs once for each failing command: a group, `if`, loop or
 *   `case` whose status is its last command's runs none of its own (that
 *   command's ran), as in bash; a subshell, a function call, a pipeline
 *   and a command substitution's assignment do.
 * - It runs as under `set -E`: in functions, subshells and command
 *   substitutions too (bash without `-E` runs it only at the function's
 *   call). A failure inside the handler runs no handler.
 * - Only the block's own text sets it (WS-123); `trap - ERR` removes it and
 *   `trap '' ERR` ignores failures. Nothing is wrapped until a block sets
 *   one: other blocks pay one test per statement.
 *
 * @module
 */
// The interpreter runs with no configuration file, so its import names the exact version.
// deno-lint-ignore no-import-prefix
import { parse } from "npm:just-bash@3.4.2";
import type { StatementNode } from "just-bash";
import { type Interpreter, wrapMethod } from "./worker-shell-interpreter.ts";

/** A script whose text may set an ERR trap. */
export const MAY_TRAP_ERR = /\bERR\b/;

/** The handler of the block that runs now; undefined when none is set. */
let handler: string | undefined;
/** Whether a handler runs now (its own failures run none). */
let running = false;
/** The errexit errors whose failure ran the handler. */
const trapped = new WeakSet<object>();
/** The text of the last command (no function call) that ended, for `$BASH_COMMAND`. */
let lastCommand: string | undefined;

/** Sets (or, with undefined, removes) the ERR trap of the block that runs now. */
export function setErrTrap(action: string | undefined): void {
  handler = action === "" ? undefined : action;
}

/** What the wrapper reads of an interpreter's state. */
interface ShellState {
  currentLine?: number;
  functions?: Map<string, unknown>;
  inCondition?: boolean;
  errexitSafe?: boolean;
  lastExitCode: number;
  env: Map<string, string>;
}

interface StatementOutput {
  stdout: string;
  stderr: string;
  exitCode: number;
  internalOutputAccounting?: { stdout: number; stderr: number };
}

function stateOf(interpreter: Interpreter): ShellState {
  return (interpreter as unknown as { ctx: { state: ShellState } }).ctx.state;
}

/** Compound commands whose failure is the failure of a command inside them, whose handler ran. */
const RUN_BY_THEIR_COMMANDS = new Set([
  "Group",
  "If",
  "For",
  "CStyleFor",
  "While",
  "Until",
  "Case",
]);

/** Whether `statement`'s failure is its own, not that of a command inside a compound one. */
function failsItself(statement: StatementNode): boolean {
  const last = statement.pipelines.at(-1);
  return !(last?.commands.length === 1 && RUN_BY_THEIR_COMMANDS.has(last.commands[0].type));
}

/** The line of `node`'s first command that has one. */
function lineOf(node: unknown): number | undefined {
  if (typeof node !== "object" || node === null) return undefined;
  const line = (node as { line?: unknown }).line;
  if (typeof line === "number") return line;
  for (const child of Object.values(node)) {
    const found = lineOf(child);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Whether `statement` is a call of a function the shell has. */
function calledFunction(interpreter: Interpreter, statement: StatementNode): boolean {
  const commands = statement.pipelines.at(-1)?.commands;
  const command = commands?.length === 1 ? commands[0] : undefined;
  if (command?.type !== "SimpleCommand") return false;
  const parts = command.name?.parts;
  const name = parts?.length === 1 && parts[0].type === "Literal" ? parts[0].value : undefined;
  return name !== undefined && stateOf(interpreter).functions?.has(name) === true;
}

/** Removes, in place, every `line` of `node`, so the handler leaves `$LINENO` the failure's. */
function withoutLines(node: unknown): void {
  if (typeof node !== "object" || node === null) return;
  if (Array.isArray(node)) return node.forEach(withoutLines);
  delete (node as { line?: unknown }).line;
  Object.values(node).forEach(withoutLines);
}

/** Appends `more`'s output to `to`'s. */
function append(to: StatementOutput, more: StatementOutput): void {
  to.stdout += more.stdout;
  to.stderr += more.stderr;
  if (to.internalOutputAccounting) {
    to.internalOutputAccounting.stdout += more.stdout.length;
    to.internalOutputAccounting.stderr += more.stderr.length;
  }
}

/** Runs the handler for `statement`'s failure with `status`; its output, or its `exit` thrown. */
async function runHandler(
  interpreter: Interpreter,
  statement: StatementNode,
  status: number,
): Promise<StatementOutput | undefined> {
  if (handler === undefined) return undefined;
  const ast = parse(handler);
  withoutLines(ast);
  const state = stateOf(interpreter);
  const setStatus = () => {
    state.lastExitCode = status;
    state.env.set("?", String(status));
  };
  setStatus();
  // `$LINENO` is the failing statement's line (not the last line a function it called ran).
  const line = lineOf(statement.pipelines.at(-1));
  if (line !== undefined) state.currentLine = line;
  // As in bash, a function call's is the last command its body ran.
  const command = calledFunction(interpreter, statement) ? lastCommand : statement.sourceText;
  if (command !== undefined) state.env.set("BASH_COMMAND", command);
  running = true;
  try {
    return await interpreter.executeScript(ast) as StatementOutput;
  } finally {
    running = false;
    setStatus();
  }
}

/** Wraps `interpreter`'s `executeStatement` so a failing statement runs the block's ERR trap. */
export function runErrTraps(interpreter: Interpreter): void {
  wrapMethod(
    interpreter,
    "executeStatement",
    (execute) =>
      function (this: Interpreter, statement: StatementNode): Promise<unknown> {
        // No handler: the statement runs as just-bash runs it, with no promise of this wrapper's.
        if (handler === undefined || running) return execute.call(this, statement);
        return trapping(this, statement, execute);
      },
  );
}

/** Runs `statement` by `execute`, then the handler when it failed (see the module's documentation). */
async function trapping(
  interpreter: Interpreter,
  statement: StatementNode,
  execute: Interpreter["executeStatement"],
): Promise<unknown> {
  let ended: StatementOutput;
  try {
    ended = await execute.call(interpreter, statement) as StatementOutput;
  } catch (error) {
    // `set -e` ends the script here: the handler runs first.
    const errexit = error as Partial<StatementOutput> & { name?: unknown };
    if (errexit?.name !== "ErrexitError" || trapped.has(errexit)) throw error;
    // Once, for the statement that failed, not again for each that ends with it.
    trapped.add(errexit);
    if (!calledFunction(interpreter, statement)) {
      lastCommand = statement.sourceText ?? lastCommand;
    }
    await runAfter(interpreter, statement, errexit as StatementOutput);
    throw error;
  }
  const state = stateOf(interpreter);
  if (!calledFunction(interpreter, statement) && failsItself(statement)) {
    lastCommand = statement.sourceText ?? lastCommand;
  }
  if (
    ended.exitCode !== 0 && !state.errexitSafe && !state.inCondition &&
    !statement.background && failsItself(statement)
  ) await runAfter(interpreter, statement, ended);
  return ended;
}

/** Runs the handler after `ended`, appending its output; a handler's `exit` carries `ended`'s output. */
async function runAfter(
  interpreter: Interpreter,
  statement: StatementNode,
  ended: StatementOutput,
): Promise<void> {
  try {
    const output = await runHandler(interpreter, statement, ended.exitCode);
    if (output) append(ended, output);
  } catch (error) {
    const exit = error as { prependOutput?: (stdout: string, stderr: string) => void };
    exit.prependOutput?.(ended.stdout, ended.stderr);
    throw error;
  }
}
