/**
 * Globs that end in `/`. In bash, `*\/` (or `src/*\/`, `[ab]*\/`) matches only
 * folders, symbolic links to folders included, and each word keeps its `/`:
 * `for d in *\/` iterates over the folders. just-bash drops the last `/` of a
 * pattern, so such a glob matched files too and its words lost the `/`.
 * Before a block runs, this transform gives each such word bash's meaning:
 * the word `P/` becomes `"${__xmd_dirs_N[@]}"`, filled just before the
 * command by
 *
 *     printf -v __xmd_status %s "$?"
 *     __xmd_dirs_N=()
 *     for __xmd_dir in P; do if [[ -d $__xmd_dir ]]; then __xmd_dirs_N+=("$__xmd_dir/"); fi; done
 *     if [[ ${#__xmd_dirs_N[@]} == 0 ]] && ! shopt -q nullglob; then __xmd_dirs_N=('P/'); fi
 *     (exit $__xmd_status) && :                 # when the command reads `$?`
 *
 * so `P` is expanded by just-bash as before (its dot-file, `nullglob`,
 * `GLOBIGNORE` and `set -f` rules), folders are kept with a `/` in its
 * order, and with no folder the word stays as written (nothing under
 * `nullglob`). The statements go before the statement when the word is in
 * its first pipeline, and into a group `{ …; command; }` in its place when
 * it is in a later one (`cd out && ls -d *\/`).
 *
 * Invariants:
 * - Only a word of a command's arguments, of a `for` list or of an array
 *   assignment is changed, and only when an unquoted glob comes before its
 *   last `/`; a script without one runs as written.
 * - The variables `__xmd_dirs_N`, `__xmd_dir` and `__xmd_status` are left
 *   set; `failglob` with files but no folder matching gives the word as
 *   written, not an error.
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
  WordNode,
} from "just-bash";
import { readsStatus } from "./worker-shell-ast.ts";
import { positioned } from "./worker-shell-written.ts";

/** A block whose text may hold a glob ending in `/`: one of `*?]`, then `/` (a cheap filter). */
export const MAY_GLOB_DIRS = /[*?\]][^\s;&|()<>'"]*\/(?=$|[\s;&|)<>])/m;

type WordPart = WordNode["parts"][number];
type ForNode = Extract<CommandNode, { type: "For" }>;
type SimpleCommand = Extract<CommandNode, { type: "SimpleCommand" }>;

/** Whether `word` is a glob whose last `/` follows an unquoted glob. */
function endsInDirGlob(word: WordNode): boolean {
  const last = word.parts.at(-1);
  if (last?.type !== "Literal" || !last.value.endsWith("/")) return false;
  return word.parts.some((part) => part.type === "Glob");
}

/** `word` without its last `/`. */
function withoutSlash(word: WordNode): WordNode {
  const parts = word.parts.slice(0, -1);
  const last = word.parts.at(-1) as Extract<WordPart, { type: "Literal" }>;
  const rest = last.value.slice(0, -1);
  if (rest !== "") parts.push({ type: "Literal", value: rest });
  return { type: "Word", parts: structuredClone(parts) };
}

/** `word` as written, its glob characters taken literally (bash's word when nothing matched). */
function literally(word: WordNode): WordNode {
  return {
    type: "Word",
    parts: word.parts.map((part): WordPart =>
      part.type === "Glob"
        ? { type: "SingleQuoted", value: part.pattern.replace(/\\(.)/g, "$1") }
        : structuredClone(part)
    ),
  };
}

function arrayWord(name: string): WordNode {
  return {
    type: "Word",
    parts: [{
      type: "DoubleQuoted",
      parts: [{ type: "ParameterExpansion", parameter: `${name}[@]`, operation: null }],
    }],
  };
}

const SAVE = 'printf -v __xmd_status %s "$?"';
const RESTORE = "(exit $__xmd_status) && :";

/** The statements that fill `name` with the folders `word` matches. */
function filling(name: string, word: WordNode, line: number | undefined): StatementNode[] {
  const [start, loop, fallback] = parse(
    `${name}=()\n` +
      `for __xmd_dir in P; do if [[ -d $__xmd_dir ]]; then ${name}+=("$__xmd_dir/"); fi; done\n` +
      `if [[ \${#${name}[@]} == 0 ]] && ! shopt -q nullglob; then ${name}=(P); fi`,
  ).statements;
  (loop.pipelines[0].commands[0] as ForNode).words = [withoutSlash(word)];
  const fallbackIf = fallback.pipelines[0].commands[0] as Extract<CommandNode, { type: "If" }>;
  const assign = fallbackIf.clauses[0].body[0].pipelines[0].commands[0] as SimpleCommand;
  assign.assignments[0].array = [literally(word)];
  return [start, loop, fallback].map((statement) => positioned(statement, line));
}

function one(text: string, line: number | undefined): StatementNode {
  return positioned(parse(text).statements[0], line);
}

/** The word lists of `command` that bash globs. */
function wordLists(command: CommandNode): WordNode[][] {
  if (command.type === "For") return command.words ? [command.words] : [];
  if (command.type !== "SimpleCommand") return [];
  const lists = [command.args];
  for (const assignment of command.assignments) {
    if (assignment.array) lists.push(assignment.array);
  }
  return lists;
}

/** Rewrites `command`'s words; returns the statements that must run just before it. */
function rewriteCommand(
  command: CommandNode,
  line: number | undefined,
  names: () => string,
): StatementNode[] {
  const before: StatementNode[] = [];
  for (const list of wordLists(command)) {
    list.forEach((word, i) => {
      if (!endsInDirGlob(word)) return;
      const name = names();
      before.push(...filling(name, word, line));
      list[i] = arrayWord(name);
    });
  }
  if (before.length === 0) return before;
  const reads = readsStatus(command);
  return [
    ...(reads ? [one(SAVE, line)] : []),
    ...before,
    ...(reads ? [one(RESTORE, line)] : []),
  ];
}

function alone(command: CommandNode, line: number | undefined): StatementNode {
  const pipeline: PipelineNode = { type: "Pipeline", commands: [command], negated: false };
  return { type: "Statement", line, pipelines: [pipeline], operators: [], background: false };
}

/** `statement` and what must run before it, or undefined when it has no such word. */
function rewritten(statement: StatementNode, names: () => string): StatementNode[] | undefined {
  if (statement.deferredError) return undefined;
  const before: StatementNode[] = [];
  let changed = false;
  statement.pipelines.forEach((pipeline, p) => {
    pipeline.commands.forEach((command, c) => {
      const fill = rewriteCommand(command, statement.line, names);
      if (fill.length === 0) return;
      changed = true;
      // The first pipeline's words expand first: filling them before the statement is the same.
      if (p === 0) before.push(...fill);
      else {
        pipeline.commands[c] = {
          type: "Group",
          body: [...fill, alone(command, statement.line)],
          redirections: [],
        };
      }
    });
  });
  return changed ? [...before, statement] : undefined;
}

function isStatement(value: unknown): value is StatementNode {
  return (value as { type?: unknown } | null)?.type === "Statement";
}

/** Rewrites, in place, every statement list under `script`. */
function rewriteAll(script: ScriptNode): void {
  let count = 0;
  const names = () => `__xmd_dirs_${++count}`;
  const stack: object[] = [script];
  while (stack.length > 0) {
    const value = stack.pop() as Record<string, unknown>;
    for (const [key, child] of Object.entries(value)) {
      if (child === null || typeof child !== "object") continue;
      if (Array.isArray(child) && child.length > 0 && child.every(isStatement)) {
        // Visit the statements as written first: what is added holds no such word.
        for (const statement of child) stack.push(statement);
        value[key] = child.flatMap((statement) => rewritten(statement, names) ?? [statement]);
        continue;
      }
      stack.push(child);
    }
  }
}

/** The transform (stateless: one object serves every block). */
export const dirGlobsPlugin: TransformPlugin = {
  name: "xmd-dir-globs",
  transform({ ast }): { ast: ScriptNode } {
    rewriteAll(ast);
    return { ast };
  },
};
