/**
 * `local`, `declare` or `typeset` of an array (`local cmd=("$@")`,
 * `declare -a files=("${list[@]}" extra)`, `local lines=($(cmd))`) gets one
 * element per word, as in bash (WS-175). just-bash expands such an operand
 * to one string before it reads the list, so `local cmd=("$@")` with three
 * arguments held one element: the three joined.
 *
 * Before a block runs, each such operand is split off: the command declares
 * the name alone, and an array assignment `NAME=(…)` of the same list runs
 * right after it, in a group in the command's place (a group is not a
 * subshell: the name is still the function's own). just-bash expands an
 * array assignment's list as bash does.
 *
 * Invariants:
 * - Each operand `NAME=(…)` is split, its list read again from the
 *   statement's text (`sourceText`), as just-bash's parser keeps such an
 *   operand's list only approximately (a command substitution becomes the
 *   word `CommandSubstitution`, `\ ` a blank, `${@:2}` loses its offset);
 *   without that text, only a list holding an expansion the parser kept is
 *   split, read from its parts. `readonly`, `export` and a read-only
 *   declaration (`local -r`) run as written.
 * - The other operands of the command are declared with it, before the
 *   array is assigned (bash: left to right).
 *
 * @module
 */
// The interpreter runs with no configuration file, so its import names the exact version.
// deno-lint-ignore no-import-prefix
import { parse } from "npm:just-bash@3.4.2";
import type { CommandNode, ScriptNode, StatementNode, TransformPlugin, WordNode } from "just-bash";
import { literalOf, statementOf } from "./worker-shell-ast.ts";

/** Whether a block's text may declare an array with expansions in its list. */
export function mayDeclareArrays(text: string): boolean {
  return /\b(?:local|declare|typeset)\b/.test(text) && text.includes("=(");
}

const DECLARES: ReadonlySet<string> = new Set(["local", "declare", "typeset"]);

type Simple = Extract<CommandNode, { type: "SimpleCommand" }>;

/** Whether `word` is `NAME=(…)`: an array's list. */
function isList(word: WordNode): boolean {
  const first = word.parts[0];
  return first?.type === "Literal" && /^[A-Za-z_]\w*=\(/.test(first.value);
}

/** Whether `word`'s list holds an expansion just-bash's parser kept. */
function expandingList(word: WordNode): boolean {
  const stack: unknown[] = word.parts.slice(1);
  while (stack.length > 0) {
    const part = stack.pop() as { type?: unknown; parts?: unknown[] };
    if (part.type === "ParameterExpansion" || part.type === "CommandSubstitution") return true;
    if (part.type === "DoubleQuoted" && part.parts) stack.push(...part.parts);
  }
  return false;
}

type Part = WordNode["parts"][number];
type Assignment = Simple["assignments"][number];

/**
 * `NAME=(…)` as an array assignment: the list's words are split where its
 * literal text has blanks (only a literal part can hold an unquoted
 * blank), each other part staying in its word. Undefined for a list this
 * does not read (one not closed by `)`, or with a `[key]=` element).
 */
function arrayAssignment(word: WordNode): Assignment | undefined {
  const [first, ...rest] = word.parts;
  const last = rest.at(-1);
  if (first?.type !== "Literal" || last?.type !== "Literal" || !last.value.endsWith(")")) {
    return undefined;
  }
  const open = first.value.indexOf("=(");
  const name = first.value.slice(0, open);
  const parts: Part[] = [
    { type: "Literal", value: first.value.slice(open + 2) },
    ...rest.slice(0, -1),
    { type: "Literal", value: last.value.slice(0, -1) },
  ];
  const elements: WordNode[] = [];
  let current: Part[] = [];
  const close = () => {
    if (current.length > 0) elements.push({ type: "Word", parts: current });
    current = [];
  };
  for (const part of parts) {
    if (part.type !== "Literal") {
      current.push(part);
      continue;
    }
    for (const piece of part.value.split(/(\s+)/)) {
      if (/^\s+$/.test(piece)) close();
      else if (piece) current.push({ type: "Literal", value: piece });
    }
  }
  close();
  const keyed = elements.some((element) => {
    const head = element.parts[0];
    return head?.type === "Literal" && head.value.startsWith("[");
  });
  if (keyed) return undefined;
  return { type: "Assignment", name, value: null, append: false, array: elements };
}

/**
 * `NAME=(…)` read again from the statement's text, as an array assignment:
 * just-bash's parser keeps such an operand's list only approximately (a
 * command substitution, an escaped blank, an operation on `$@` are lost),
 * while it reads an array assignment's list as bash does. The list ends at
 * the first `)` after `NAME=(` with which the assignment parses whole.
 */
function fromSource(source: string | undefined, name: string): Assignment | undefined {
  if (source === undefined) return undefined;
  const opening = new RegExp(`(?:^|[\\s;&|({])${name}=\\(`).exec(source);
  if (!opening) return undefined;
  const start = opening.index + opening[0].length;
  for (let end = source.indexOf(")", start); end >= 0; end = source.indexOf(")", end + 1)) {
    const text = `${name}=(${source.slice(start, end)})`;
    let script: ScriptNode;
    try {
      script = parse(text);
    } catch {
      continue;
    }
    const statement = script.statements.length === 1 ? script.statements[0] : undefined;
    const command =
      statement?.pipelines.length === 1 && statement.pipelines[0].commands.length === 1
        ? statement.pipelines[0].commands[0]
        : undefined;
    if (
      command?.type === "SimpleCommand" && command.name === null &&
      command.assignments.length === 1 && command.assignments[0].array !== null &&
      command.assignments[0].name === name
    ) return command.assignments[0];
  }
  return undefined;
}

/** The commands made here: the walk meets each again inside its group. */
const made = new WeakSet<CommandNode>();

function rewritten(command: CommandNode, source: string | undefined): CommandNode {
  if (command.type !== "SimpleCommand" || made.has(command)) return command;
  const name = literalOf(command.name);
  if (name === undefined || !DECLARES.has(name) || !command.args.some(isList)) return command;
  // A read-only name (`local -r`) could not be assigned after it is declared.
  if (command.args.some((arg) => /^-[A-Za-z]*r/.test(literalOf(arg) ?? ""))) return command;
  const assignments: StatementNode[] = [];
  const args = command.args.map((arg) => {
    const first = arg.parts[0];
    if (!isList(arg) || first?.type !== "Literal") return arg;
    const declared = first.value.slice(0, first.value.indexOf("=("));
    const assignment = fromSource(source, declared) ??
      (expandingList(arg) ? arrayAssignment(arg) : undefined);
    if (!assignment) return arg;
    const alone: Simple = {
      type: "SimpleCommand",
      name: null,
      args: [],
      assignments: [assignment],
      redirections: [],
    };
    assignments.push(statementOf(alone, command.line));
    return { type: "Word", parts: [{ type: "Literal", value: declared }] } as WordNode;
  });
  if (assignments.length === 0) return command;
  const declaring: Simple = { ...command, args };
  made.add(declaring);
  const line = command.line;
  return {
    type: "Group",
    line,
    body: [statementOf(declaring, line), ...assignments],
    redirections: [],
  };
}

/** Rewrites, in place, each declaration under `root`, reading its statement's text. */
function rewriteUnder(root: object): void {
  const stack: object[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as { type?: unknown };
    if (node.type === "Statement") {
      const statement = node as StatementNode;
      for (const pipeline of statement.pipelines) {
        pipeline.commands = pipeline.commands.map((command) =>
          rewritten(command, statement.sourceText)
        );
      }
    }
    for (const child of Object.values(node)) {
      if (child !== null && typeof child === "object") stack.push(child);
    }
  }
}

/** The transform: every script just-bash runs in a block whose text may need it. */
export const declaredArraysPlugin: TransformPlugin = {
  name: "xmd-declared-arrays",
  transform({ ast }): { ast: ScriptNode } {
    rewriteUnder(ast);
    return { ast };
  },
};
