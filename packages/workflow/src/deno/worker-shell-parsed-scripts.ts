/**
 * Scripts just-bash parses while a block runs get the block's transforms
 * (WS-177): the text of `eval`, a file read by `source` or `.`, a script run
 * by its path (`./build.sh`, one found on `PATH`), and a `$( )` it reads
 * again from a here-document's text.
 *
 * just-bash runs the transforms of a `Bash` on each script its `exec` is
 * given (the block's, `bash -c`, `bash f`, `xargs`, a trap's handler), but
 * parses those others itself and hands their syntax tree straight to its
 * interpreter. So none of Worker Shell's fixes reached them: a library a
 * block sourced, whose `run() { "$@"; }` looked for a command named
 * `echo hello` (WS-174), whose `v=$(false; echo fallback)` ended the script
 * under `set -e` (WS-170), whose `for x; do` split its arguments at spaces
 * (WS-171); an `eval`'d `$(( 10#${n} + 1 ))` read `${n}` as unset (WS-172).
 *
 * The interpreter's `executeScript` (worker-shell-interpreter.ts) is
 * wrapped: a syntax tree the transforms have not produced passes through
 * them first.
 *
 * Invariants:
 * - A tree is transformed once. The last transform of a block marks every
 *   script node of the tree it returns (the script, and the body of each
 *   command and process substitution in it), so the interpreter running a
 *   substitution's body, or the tree `exec` just transformed, finds it
 *   marked and runs it as it is; only a tree just-bash parsed itself is not.
 * - The transforms are the block's, in the block's order, with the gated
 *   ones applied (the block's text is what told them they were not needed).
 *   The ones that act on the block's own script alone (streaming, traps)
 *   leave these as they are, as they leave `bash -c`'s.
 * - Without the interpreter (another just-bash), those scripts run
 *   untransformed, as before.
 *
 * @module
 */
import type { ScriptNode, TransformPlugin } from "just-bash";
import { type Interpreter, wrapMethod } from "./worker-shell-interpreter.ts";

/** The block's transforms for a tree just-bash parsed while it ran; none before the first block. */
let transformParsed: ((ast: ScriptNode) => ScriptNode) | undefined;

/**
 * Wraps `interpreter`'s `executeScript` so each tree it is given passes
 * through the block's transforms (see {@linkcode parsedScriptsPlugin}).
 */
export function transformParsedScripts(interpreter: Interpreter): void {
  wrapMethod(
    interpreter,
    "executeScript",
    (execute) =>
      function (this: Interpreter, ast: ScriptNode): Promise<unknown> {
        return execute.call(this, transformParsed ? transformParsed(ast) : ast);
      },
  );
}

/**
 * The last transform of a block's `Bash`, given the ones before it: it marks
 * the trees they produce, and makes every tree just-bash parses itself while
 * this block runs pass through `plugins` (and so be marked) before it runs.
 */
export function parsedScriptsPlugin(plugins: readonly TransformPlugin[]): TransformPlugin {
  const transformed = new WeakSet<object>();
  const plugin: TransformPlugin = {
    name: "xmd-parsed-scripts",
    transform({ ast }) {
      markScripts(ast, transformed);
      return { ast };
    },
  };
  transformParsed = (ast) => {
    if (transformed.has(ast)) return ast;
    let metadata = Object.create(null);
    for (const each of [...plugins, plugin]) {
      const result = each.transform({ ast, metadata });
      ast = result.ast;
      if (result.metadata) metadata = { ...metadata, ...result.metadata };
    }
    return ast;
  };
  return plugin;
}

/** Adds every script node of `node` (itself, and each substitution's body in it) to `into`. */
function markScripts(node: unknown, into: WeakSet<object>): void {
  if (typeof node !== "object" || node === null) return;
  if (Array.isArray(node)) {
    for (const item of node) markScripts(item, into);
    return;
  }
  if ((node as { type?: unknown }).type === "Script") into.add(node);
  for (const key in node) {
    const value = (node as Record<string, unknown>)[key];
    if (typeof value === "object" && value !== null) markScripts(value, into);
  }
}
