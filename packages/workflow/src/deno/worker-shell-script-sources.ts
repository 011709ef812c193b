/**
 * `BASH_SOURCE` names the file whose code runs, as in bash (WS-192): a
 * script run as `bash scripts/build.sh` sees `scripts/build.sh` in
 * `${BASH_SOURCE[0]}`, a sourced `lib/log.sh` sees `lib/log.sh` (and the
 * file that sourced it in `${BASH_SOURCE[1]}`), and a function sees the
 * file that defined it. just-bash filled `BASH_SOURCE` only inside a
 * function, from the file it was defined in, so the usual first line of a
 * script, `DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"`, named the
 * working folder, and the script then looked for its own files there.
 *
 * The interpreter's `executeScript` (worker-shell-interpreter.ts) is
 * wrapped: when it starts the text of a file — a file `source` or `.` read,
 * a script run by its path (`./build.sh`, whose name just-bash makes
 * absolute: `/build.sh`), or the script `bash FILE` and `sh FILE` run
 * (told by those commands, wrapped here too) — the file's name is put
 * first on the stack just-bash reads `BASH_SOURCE` from, and is the file a
 * function defined in it names, until the text ends. The text of `eval`
 * names no file of its own.
 *
 * Invariants:
 * - The block's own text, `bash -c` and `eval` name none (`BASH_SOURCE` is
 *   empty at their top, as in `bash -c`); a function the block defines
 *   names `main` (bash: `environment`).
 * - `FUNCNAME` is just-bash's: it has no `main` or `source` entry, so it is
 *   not parallel to `BASH_SOURCE` as bash's is.
 *
 * @module
 */
// The interpreter runs with no configuration file, so its import names the exact version.
// deno-lint-ignore no-import-prefix
import type { Command, ExecResult, ResolvedCommandContext } from "npm:just-bash@3.4.2";
import type { ScriptNode } from "just-bash";
import { type Interpreter, wrapMethod } from "./worker-shell-interpreter.ts";

/** What this reads and writes of an interpreter's state. */
interface SourceState {
  currentSource?: string;
  sourceStack?: string[];
}

function stateOf(interpreter: Interpreter): SourceState {
  return (interpreter as unknown as { ctx: { state: SourceState } }).ctx.state;
}

/** The script `bash FILE` or `sh FILE` is about to run, until its interpreter starts it. */
let pendingScript: string | undefined;
/** The interpreters that started their first script. */
const started = new WeakSet<object>();
/** The files each shell's state runs now, innermost first. */
const running = new WeakMap<object, string[]>();

/** The file whose text `executeScript` starts now in `interpreter`, if it starts one. */
function fileStarting(interpreter: Interpreter, state: SourceState): string | undefined {
  if (!started.has(interpreter)) {
    started.add(interpreter);
    const script = pendingScript;
    pendingScript = undefined;
    if (script !== undefined) {
      state.currentSource = script;
      return script;
    }
  }
  const current = state.currentSource;
  // `source` and a script run by its path set the file they read first; `eval` leaves it.
  return current !== undefined && current !== running.get(state)?.[0] ? current : undefined;
}

/** Wraps `interpreter`'s `executeScript` so the text of a file names it in `BASH_SOURCE`. */
export function trackScriptSources(interpreter: Interpreter): void {
  wrapMethod(
    interpreter,
    "executeScript",
    (execute) =>
      function (this: Interpreter, ast: ScriptNode): Promise<unknown> {
        const state = stateOf(this);
        const file = fileStarting(this, state);
        if (file === undefined) return execute.call(this, ast);
        const files = running.get(state) ?? [];
        running.set(state, [file, ...files]);
        (state.sourceStack ??= []).unshift(file);
        return execute.call(this, ast).finally(() => {
          state.sourceStack?.shift();
          running.set(state, files);
        });
      },
  );
}

/**
 * `bash` or `sh` over just-bash's, telling the interpreter which file the
 * script it starts next comes from (`bash FILE ARGS`); `-c` and standard
 * input name none.
 */
function tellingTheFile(name: "bash" | "sh"): Command {
  return {
    name,
    trusted: true,
    async execute(args: string[], ctx: ResolvedCommandContext): Promise<ExecResult> {
      if (ctx.origCommand === undefined) throw new Error(`${name} needs just-bash's own ${name}`);
      const file = args[0];
      if (file === undefined || file.startsWith("-")) return await ctx.origCommand(args);
      pendingScript = file;
      try {
        return await ctx.origCommand(args);
      } finally {
        pendingScript = undefined;
      }
    },
  };
}

/** `bash` and `sh`, as just-bash's but telling the file a script comes from. */
export const SCRIPT_COMMANDS: readonly Command[] = [tellingTheFile("bash"), tellingTheFile("sh")];
