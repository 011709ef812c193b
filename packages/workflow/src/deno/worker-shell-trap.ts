/**
 * `trap` in Worker Shell (WS-123). just-bash has no `trap` ("command not
 * found", status 127), so under `set -e` the usual header of a careful
 * script, `trap 'rm -rf "$tmp"' EXIT`, ended the block. This module gives a
 * block bash's `EXIT` trap: the handler runs once, when the block's shell
 * ends (its last statement, `exit`, or `set -e`), with the shell's
 * variables, working folder and options as they were then, the functions
 * the block's text defines, and `$?` the status the block ended with; the
 * block's status stays that one unless the handler ends with `exit` or fails
 * under `set -e`, as in bash.
 *
 * just-bash keeps a script's state inside its `exec`, and neither a command
 * nor the caller sees it after the script ends by `exit`. So, when a block's
 * text names `trap`, a transform rewrites it before it runs:
 * - `trap ARGS` becomes `__xmd_trap "$BASHPID" "$$" ARGS`, so the command
 *   knows whether it runs in the block's own shell (a subshell or a command
 *   substitution has a `$BASHPID` of its own);
 * - `exit ARGS` becomes `if __xmd_exit "$?" "$BASHPID" "$$"; then exit ARGS;
 *   else exit ARGS; fi`: the command copies the shell's variables, in the
 *   block's own shell, and returns the status it was given, so a bare `exit`
 *   still exits with the status before it;
 * - the block's function definitions are kept, to be defined again before
 *   the handler runs.
 * A block that ends by its last statement or `set -e` hands its variables
 * back with its result; one ended by an `exit` the transform did not see (in
 * `eval`) runs the handler with the variables as they were when the trap was
 * set.
 *
 * `ERR`'s handler runs after a failing command (worker-shell-err-trap.ts,
 * WS-184). What runs no trap, said so rather than ignored: `DEBUG` and
 * `RETURN` are refused (status 1); a trap set in a subshell, a command
 * substitution, or a script the block's text does not hold (`eval`, `bash
 * -c`, a sourced file) is refused (status 1). A signal's trap (`INT`,
 * `TERM`, ...) is kept and shown by `trap -p` but never runs: nothing sends a
 * block a signal (the host ends one by ending its interpreter). Arrays are
 * not carried into the handler (just-bash hands back only scalar variables).
 *
 * @module
 */
// The interpreter runs with no configuration file, so its imports name the exact version.
// deno-lint-ignore no-import-prefix
import { parse, serialize } from "npm:just-bash@3.4.2";
import { setErrTrap } from "./worker-shell-err-trap.ts";
// deno-lint-ignore no-import-prefix
import type * as JustBash from "npm:just-bash@3.4.2";

type Bash = JustBash.Bash;
type BashExecResult = JustBash.BashExecResult;
type Command = JustBash.Command;
type CommandNode = JustBash.CommandNode;
type ExecResult = JustBash.ExecResult;
type ResolvedCommandContext = JustBash.ResolvedCommandContext;
type ScriptNode = JustBash.ScriptNode;
type SimpleCommandNode = JustBash.SimpleCommandNode;
type StatementNode = JustBash.StatementNode;
type TransformPlugin = JustBash.TransformPlugin;

const USAGE = "trap: usage: trap [-lp] [[arg] signal_spec ...]\n";
const TRAP = "__xmd_trap";
const EXIT_STATE = "__xmd_exit";
const STATUS = "__xmd_status";

/** Signal numbers by name (no `SIG`), as Linux numbers them; 0 is EXIT. */
const SIGNALS: readonly (readonly [number, string])[] = [
  [1, "HUP"],
  [2, "INT"],
  [3, "QUIT"],
  [4, "ILL"],
  [5, "TRAP"],
  [6, "ABRT"],
  [7, "BUS"],
  [8, "FPE"],
  [9, "KILL"],
  [10, "USR1"],
  [11, "SEGV"],
  [12, "USR2"],
  [13, "PIPE"],
  [14, "ALRM"],
  [15, "TERM"],
  [16, "STKFLT"],
  [17, "CHLD"],
  [18, "CONT"],
  [19, "STOP"],
  [20, "TSTP"],
  [21, "TTIN"],
  [22, "TTOU"],
  [23, "URG"],
  [24, "XCPU"],
  [25, "XFSZ"],
  [26, "VTALRM"],
  [27, "PROF"],
  [28, "WINCH"],
  [29, "IO"],
  [30, "PWR"],
  [31, "SYS"],
  ...Array.from({ length: 31 }, (_, index): [number, string] => {
    const number = 34 + index;
    if (number === 34) return [number, "RTMIN"];
    if (number <= 49) return [number, `RTMIN+${number - 34}`];
    if (number === 64) return [number, "RTMAX"];
    return [number, `RTMAX-${64 - number}`];
  }),
];
const NAMES = new Map(SIGNALS.map(([number, name]) => [number, `SIG${name}`]));
const NUMBERS = new Map(SIGNALS.map(([number, name]) => [name, number]));
const EXIT = 0;
/** `ERR`'s place in bash's order (after the signals; not a number `trap` accepts). */
const ERR = 66;
const REFUSED = new Set(["DEBUG", "RETURN"]);

/** A signal spec's number, "refused" for bash's pseudo-signals Worker Shell never raises. */
function signalOf(spec: string): number | "refused" | undefined {
  const upper = spec.toUpperCase();
  if (/^\d+$/.test(spec)) {
    const number = Number(spec);
    return number === EXIT || NAMES.has(number) ? number : undefined;
  }
  if (upper === "EXIT") return EXIT;
  if (upper === "ERR") return ERR;
  if (REFUSED.has(upper)) return "refused";
  return NUMBERS.get(upper.startsWith("SIG") ? upper.slice(3) : upper);
}

/** `trap -l`: bash's table, five to a line. */
function signalTable(): string {
  let text = "";
  SIGNALS.forEach(([number, name], index) => {
    text += `${String(number).padStart(2)}) SIG${name}`;
    text += index % 5 === 4 ? "\n" : "\t";
  });
  return SIGNALS.length % 5 === 0 ? text : `${text}\n`;
}

function quoted(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

function result(stdout: string, stderr: string, exitCode: number): ExecResult {
  return { stdout, stderr, exitCode };
}

/** The shell's variables as a command sees them. */
function variables(ctx: ResolvedCommandContext): Record<string, string> {
  const copy: Record<string, string> = {};
  ctx.env.forEach((value, name) => {
    copy[name] = value;
  });
  return copy;
}

/** The `set -o` options bash turns on that the handler's shell must have too. */
const CARRIED_OPTIONS = ["errexit", "nounset", "pipefail", "noglob", "noclobber", "allexport"];

function isTrapCommand(node: CommandNode): node is SimpleCommandNode {
  return isNamed(node, "trap");
}

function isNamed(node: CommandNode, name: string): node is SimpleCommandNode {
  if (node.type !== "SimpleCommand" || node.name === null) return false;
  const parts = node.name.parts;
  return parts.length === 1 && parts[0].type === "Literal" && parts[0].value === name;
}

/** The words `"$BASHPID" "$$"`, parsed. */
function markerWords(): SimpleCommandNode["args"] {
  const text = 'x "$BASHPID" "$$"';
  const command = parse(text).statements[0].pipelines[0].commands[0] as SimpleCommandNode;
  return command.args;
}

/** `if __xmd_exit "$?" "$BASHPID" "$$"; then <exit>; else <exit>; fi`, in place of `exit`. */
function exitWithState(node: SimpleCommandNode): CommandNode {
  const text = `if ${EXIT_STATE} "$?" "$BASHPID" "$$"; then exit; else exit; fi`;
  const branch = parse(text).statements[0].pipelines[0].commands[0];
  if (branch.type !== "If") throw new Error("an if statement parses as one");
  const exits = [branch.clauses[0].body[0], branch.elseBody![0]];
  for (const statement of exits) {
    statement.pipelines[0].commands[0] = structuredClone(node);
  }
  return { ...branch, line: node.line };
}

/** One statement of `command` alone. */
function statementOf(command: CommandNode): StatementNode {
  return {
    type: "Statement",
    pipelines: [{ type: "Pipeline", commands: [command], negated: false }],
    operators: [],
    background: false,
  };
}

/**
 * One block's traps: the transform and the commands that set them, and the
 * handler's run when the block ends. Made per block.
 */
export class BlockTraps {
  /** The action of each trapped signal, by number ("" ignores it). */
  readonly #actions = new Map<number, string>();
  /** The shell's variables when the EXIT trap was set, and at a top-level `exit`. */
  #setVariables: Record<string, string> | undefined;
  #exitVariables: Record<string, string> | undefined;
  #functions: string[] = [];
  #transformed = false;
  #firing = false;

  constructor() {
    // A block starts with no ERR trap (WS-184).
    setErrTrap(undefined);
  }

  /** Rewrites the block's text (the first script the `Bash` runs), and no other. */
  readonly plugin: TransformPlugin = {
    name: "xmd-trap",
    transform: ({ ast }): { ast: ScriptNode } => {
      if (this.#transformed) return { ast };
      this.#transformed = true;
      this.#rewrite(ast);
      return { ast };
    },
  };

  /** `trap` as the block's text calls it (rewritten), as anything else does, and the rewrite's helpers. */
  readonly commands: Command[] = [
    {
      name: TRAP,
      execute: (args, ctx) => Promise.resolve(this.#trap(args.slice(2), ctx, args[0] === args[1])),
    },
    { name: "trap", execute: (args, ctx) => Promise.resolve(this.#trap(args, ctx, undefined)) },
    {
      name: EXIT_STATE,
      execute: (args, ctx) => {
        if (!this.#firing && args[1] === args[2]) this.#exitVariables = variables(ctx);
        return Promise.resolve(result("", "", Number(args[0]) || 0));
      },
    },
    {
      name: STATUS,
      execute: (args) => Promise.resolve(result("", "", Number(args[0]) || 0)),
    },
  ];

  /**
   * Ends the block: runs the EXIT trap, if one is set, after `ended` (the
   * block's result; undefined when `exec` threw, with `status` its status),
   * and returns what the handler adds and the block's final status.
   */
  async end(
    bash: Bash,
    ended: BashExecResult | undefined,
    status: number,
    signal: AbortSignal,
  ): Promise<ExecResult> {
    const action = this.#actions.get(EXIT);
    if (action === undefined || action === "" || this.#firing) return result("", "", status);
    this.#firing = true;
    // An `exit` the transform saw left the shell's variables; a block that
    // ran to its end or stopped under `set -e` hands them back ("?" is among
    // them, and not among those of a block that `exit` ended unseen).
    const state = this.#exitVariables ??
      (ended !== undefined && "?" in ended.env ? ended.env : this.#setVariables) ?? {};
    const env = { ...state };
    delete env["?"];
    const options = (env.SHELLOPTS ?? "").split(":").filter((name) =>
      CARRIED_OPTIONS.includes(name)
    );
    const script = [
      ...options.map((name) => `set -o ${name}`),
      ...this.#functions,
      `${STATUS} ${status} ${status === 0 ? "&&" : "||"} {`,
      action,
      "}",
      `exit ${status}`,
    ].join("\n");
    return await bash.exec(script, { env, replaceEnv: true, cwd: env.PWD, signal });
  }

  #rewrite(ast: ScriptNode): void {
    // Every pipeline's commands, in the order of the text.
    const found: CommandNode[][] = [];
    const visit = (value: unknown): void => {
      if (value === null || typeof value !== "object") return;
      if (Array.isArray(value)) return value.forEach(visit);
      const node = value as { type?: unknown; commands?: CommandNode[] };
      if (node.type === "Pipeline" && node.commands) found.push(node.commands);
      Object.values(value).forEach(visit);
    };
    visit(ast);
    if (!found.some((commands) => commands.some(isTrapCommand))) return;
    const functions: CommandNode[] = [];
    for (const commands of found) {
      commands.forEach((command, index) => {
        if (command.type === "FunctionDef") functions.push(command);
        if (isTrapCommand(command)) {
          commands[index] = {
            ...command,
            name: { type: "Word", parts: [{ type: "Literal", value: TRAP }] },
            args: [...markerWords(), ...command.args],
          };
        } else if (isNamed(command, "exit")) {
          commands[index] = exitWithState(command);
        }
      });
    }
    // Serialized once every `exit` in their bodies is rewritten.
    this.#functions = functions.map((node) =>
      serialize({ type: "Script", statements: [statementOf(node)] })
    );
  }

  /** bash's `trap`; `own` tells whether the block's own shell runs it (undefined: unknown). */
  #trap(args: string[], ctx: ResolvedCommandContext, own: boolean | undefined): ExecResult {
    let list = false;
    let print = false;
    let index = 0;
    for (; index < args.length; index++) {
      const arg = args[index];
      if (arg === "--") {
        index++;
        break;
      }
      if (!arg.startsWith("-") || arg === "-") break;
      for (const flag of arg.slice(1)) {
        if (flag === "l") list = true;
        else if (flag === "p") print = true;
        else return result("", `bash: trap: ${arg}: invalid option\n${USAGE}`, 2);
      }
    }
    const operands = args.slice(index);
    if (list) return result(signalTable(), "", 0);
    if (print || operands.length === 0) return this.#print(operands);
    // One operand is a signal to reset; more are an action and its signals.
    const resetOnly = operands.length === 1;
    if (resetOnly && signalOf(operands[0]) === undefined) return result("", USAGE, 2);
    const action = resetOnly || operands[0] === "-" ? undefined : operands[0];
    const specs = resetOnly ? operands : operands.slice(1);
    if (own !== true) {
      const where = own === false
        ? "in a subshell or a command substitution"
        : "outside the block's own text (eval, bash -c, a sourced script)";
      return result("", `bash: trap: Worker Shell sets no trap ${where}\n`, 1);
    }
    let stderr = "";
    for (const spec of specs) {
      const number = signalOf(spec);
      if (number === undefined) {
        stderr += `bash: trap: ${spec}: invalid signal specification\n`;
      } else if (number === "refused") {
        stderr += `bash: trap: ${spec}: Worker Shell runs no DEBUG or RETURN trap\n`;
      } else if (action === undefined) {
        this.#actions.delete(number);
        if (number === ERR) setErrTrap(undefined);
      } else {
        this.#actions.set(number, action);
        if (number === ERR) setErrTrap(action);
        if (number === EXIT && !this.#firing) this.#setVariables = variables(ctx);
      }
    }
    return result("", stderr, stderr === "" ? 0 : 1);
  }

  #print(specs: string[]): ExecResult {
    let stdout = "";
    let stderr = "";
    const numbers: number[] = [];
    for (const spec of specs) {
      const number = signalOf(spec);
      if (typeof number === "number") numbers.push(number);
      else stderr += `bash: trap: ${spec}: invalid signal specification\n`;
    }
    const shown = specs.length === 0 ? [...this.#actions.keys()].sort((a, b) => a - b) : numbers;
    for (const number of shown) {
      const action = this.#actions.get(number);
      if (action === undefined) continue;
      const name = number === EXIT ? "EXIT" : number === ERR ? "ERR" : NAMES.get(number);
      stdout += `trap -- ${quoted(action)} ${name}\n`;
    }
    return result(stdout, stderr, stderr === "" ? 0 : 1);
  }
}
