/**
 * `set -e` in the parts of an `&&`/`||` list that bash exempts. Under
 * errexit, bash ignores a failure inside any pipeline of an and-or list but
 * the last, and inside a negated one (`!`): `f || echo missing` runs `f`'s
 * body to its end (its last status is `f`'s), and `{ a; b; } && c` does not
 * end the script when `a` fails. just-bash exempts only a simple command in
 * those places: a function, group, subshell, loop, `if`, `case`, `eval` or
 * `source` there ended the whole script at its first failing statement, so
 * `check || die "..."` never reached `die`. It exempts the condition of an
 * `if`, so this transform runs each such part as one: a statement
 *
 *     P1 op1 P2 op2 ... Pn
 *
 * whose parts call something that can hold statements becomes
 *
 *     if P1; then __xmd_status=0; else printf -v __xmd_status %s "$?"; fi
 *     if [[ $__xmd_status == 0 ]]; then if P2; then ...; fi; fi      (op1 is &&)
 *     if [[ $__xmd_status != 0 ]]; then (exit $__xmd_status) && :; if P2; ...; fi   (op1 is ||)
 *     ...
 *     if [[ ... ]]; then [restore $?]; Pn; else (exit $__xmd_status) && :; fi
 *
 * The last part runs as written (its failure ends the script, as in bash),
 * a part skipped leaves the status of the one before, `$?` entering a part
 * is the status that chose it, and `(exit N) && :` sets a status without
 * counting as a failure (its failing part is not the list's last).
 *
 * Invariants:
 * - Only a statement with a part that holds a compound command, a call of a
 *   function the script defines, `eval`, `source` or `.`, or of a name that
 *   is neither a builtin nor one of the shell's commands (a function defined
 *   where the script does not show it: a sourced library, `eval`; WS-178)
 *   is rewritten, and only in a block whose text can turn errexit on; any
 *   other runs as written. A background statement or one with a deferred syntax error is
 *   left as it is.
 * - Status, `$?` and output order are bash's; what differs is `PIPESTATUS`
 *   after a skipped part, `set -x` tracing the added tests, and the variable
 *   `__xmd_status`.
 *
 * @module
 */
// The interpreter runs with no configuration file, so its import names the exact version.
// deno-lint-ignore no-import-prefix
import { parse } from "npm:just-bash@3.4.2";
import type {
  CommandNode,
  PipelineNode,
  ScriptNode,
  StatementNode,
  TransformPlugin,
} from "just-bash";
import { positioned } from "./worker-shell-written.ts";

/** A block whose text may turn errexit on: `set -e`, `set -euo pipefail`, `set -o errexit`, … */
export const MAY_SET_ERREXIT = /\bset\s+(?:[-+][A-Za-z]*e|[^\n;]*errexit)|\bSHELLOPTS\b/;

/** The variable the rewritten lists keep a part's status in. */
const STATUS = "__xmd_status";

/** Commands whose statements run in the caller's shell, as a function's do. */
const RUNS_STATEMENTS = new Set(["eval", "source", "."]);

type IfNode = Extract<CommandNode, { type: "If" }>;

function template(text: string): StatementNode {
  return parse(text).statements[0];
}

// Not `__xmd_status=$?`: just-bash gives an assignment alone the status before it, so under
// errexit that assignment would end the script itself.
const TRY = template(`if :; then ${STATUS}=0; else printf -v ${STATUS} %s "$?"; fi`);
const WHEN_PASSED = template(`if [[ $${STATUS} == 0 ]]; then :; fi`);
const WHEN_FAILED = template(`if [[ $${STATUS} != 0 ]]; then :; fi`);
const RESTORE = template(`(exit $${STATUS}) && :`);

/** The statements this transform wrote: they need no exemption (and must not get one again). */
const written = new WeakSet<StatementNode>();

/** A fresh copy of a template, its position `line` and no source text of its own. */
function copy(node: StatementNode, line: number | undefined): StatementNode {
  const statement = positioned(structuredClone(node), line);
  written.add(statement);
  return statement;
}

function ifOf(statement: StatementNode): IfNode {
  return statement.pipelines[0].commands[0] as IfNode;
}

function alone(pipeline: PipelineNode, line: number | undefined): StatementNode {
  return { type: "Statement", line, pipelines: [pipeline], operators: [], background: false };
}

/** Conditions: their statements run exempt already (just-bash exempts an `if`'s condition). */
const CONDITION = "condition";

/** `if P; then …=0; else printf -v … %s "$?"; fi`: P in a condition, its status kept. */
function tried(pipeline: PipelineNode, line: number | undefined): StatementNode {
  const statement = copy(TRY, line);
  ifOf(statement).clauses[0].condition = [alone(pipeline, line)];
  return statement;
}

/** The names of the functions `script` defines, anywhere in it. */
function functionNames(script: ScriptNode): Set<string> {
  const names = new Set<string>();
  const stack: object[] = [script];
  while (stack.length > 0) {
    const value = stack.pop() as { type?: unknown; name?: unknown };
    if (value.type === "FunctionDef" && typeof value.name === "string") names.add(value.name);
    for (const child of Object.values(value)) {
      if (child !== null && typeof child === "object") stack.push(child);
    }
  }
  return names;
}

/**
 * bash's builtins that run none of the caller's statements (`eval`, `source`
 * and `.` do: {@linkcode RUNS_STATEMENTS}); just-bash exempts a simple
 * command calling one as bash does.
 */
// deno-fmt-ignore
const BUILTINS: ReadonlySet<string> = new Set([
  ":", "[", "alias", "bg", "bind", "break", "builtin", "caller", "cd", "command", "compgen",
  "complete", "compopt", "continue", "declare", "dirs", "disown", "echo", "enable", "exec", "exit",
  "export", "false", "fc", "fg", "getopts", "hash", "help", "history", "jobs", "kill", "let",
  "local", "logout", "mapfile", "popd", "printf", "pushd", "pwd", "read", "readarray", "readonly",
  "return", "set", "shift", "shopt", "suspend", "test", "times", "trap", "true", "type", "typeset",
  "ulimit", "umask", "unalias", "unset", "wait",
]);

/** What a script's calls are known to be: its own functions, and the shell's commands. */
interface Callees {
  readonly functions: ReadonlySet<string>;
  readonly commands: ReadonlySet<string>;
}

/**
 * Whether `command` can run statements of its own, whose failure just-bash
 * would not exempt: a compound command, `eval`, `source`, a function the
 * script defines, or a name that is neither a builtin nor one of the shell's
 * commands, which may name a function defined where the script does not
 * show it (a sourced library, an `eval`, the block before).
 */
function holdsStatements(command: CommandNode, callees: Callees): boolean {
  if (command.type === "FunctionDef") return false;
  if (command.type !== "SimpleCommand") {
    return command.type !== "ArithmeticCommand" && command.type !== "ConditionalCommand";
  }
  const parts = command.name?.parts;
  if (parts?.length !== 1 || parts[0].type !== "Literal") return false;
  const name = parts[0].value;
  if (callees.functions.has(name) || RUNS_STATEMENTS.has(name)) return true;
  // A path names a script, not a function.
  return !name.includes("/") && !BUILTINS.has(name) && !callees.commands.has(name);
}

function exempted(pipeline: PipelineNode, callees: Callees): boolean {
  return pipeline.commands.some((command) => holdsStatements(command, callees));
}

/** The statements that run `statement` with bash's errexit exemptions, or undefined if it needs none. */
function rewritten(statement: StatementNode, callees: Callees): StatementNode[] | undefined {
  if (statement.background || statement.deferredError || written.has(statement)) return undefined;
  const { pipelines, operators, line } = statement;
  const last = pipelines.length - 1;
  // A negated last part is exempt too; any other last part runs as written.
  const lastInCondition = pipelines[last].negated && exempted(pipelines[last], callees);
  const risky = pipelines.some((pipeline, i) =>
    (i < last || lastInCondition) && exempted(pipeline, callees)
  );
  if (!risky) return undefined;
  const out: StatementNode[] = [tried(pipelines[0], line)];
  for (let i = 1; i <= last; i++) {
    const passed = operators[i - 1] === "&&";
    const guard = copy(passed ? WHEN_PASSED : WHEN_FAILED, line);
    const body: StatementNode[] = passed ? [] : [copy(RESTORE, line)];
    if (i < last || lastInCondition) body.push(tried(pipelines[i], line));
    else {
      body.push(alone(pipelines[i], line));
      ifOf(guard).elseBody = [copy(RESTORE, line)];
    }
    ifOf(guard).clauses[0].body = body;
    out.push(guard);
  }
  if (lastInCondition) out.push(copy(RESTORE, line));
  out[0].sourceText = statement.sourceText;
  return out;
}

function isStatement(value: unknown): value is StatementNode {
  return (value as { type?: unknown } | null)?.type === "Statement";
}

/** Rewrites, in place, every statement list under `script` that needs it, in a shell of `commands`. */
function rewriteAll(script: ScriptNode, commands: ReadonlySet<string>): void {
  const callees: Callees = { functions: functionNames(script), commands };
  const stack: object[] = [script];
  while (stack.length > 0) {
    const value = stack.pop() as Record<string, unknown>;
    for (const [key, child] of Object.entries(value)) {
      if (child === null || typeof child !== "object") continue;
      if (
        key !== CONDITION && Array.isArray(child) && child.length > 0 && child.every(isStatement)
      ) {
        value[key] = child.flatMap((statement) => rewritten(statement, callees) ?? [statement]);
      }
      // The parts moved into new statements are visited there, once.
      stack.push(value[key] as object);
    }
  }
}

/** The transform for a shell whose commands are named `commands` (stateless: one serves every block). */
export function errexitListsPlugin(commands: Iterable<string>): TransformPlugin {
  const known = new Set(commands);
  return {
    name: "xmd-errexit-lists",
    transform({ ast }): { ast: ScriptNode } {
      rewriteAll(ast, known);
      return { ast };
    },
  };
}
