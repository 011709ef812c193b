/**
 * `mkdir -m MODE` in Worker Shell (WS-126): just-bash's `mkdir` refuses `-m`
 * and `--mode` ("invalid option"). This command takes the mode out, has
 * just-bash's `mkdir` make the folders, and then gives MODE to each folder an
 * operand names that did not exist before, as GNU mkdir does (with `-p`, the
 * parents it makes keep the default mode). A symbolic MODE starts from
 * `a=rwx`, GNU's point of departure (worker-shell-mode.ts); a MODE chmod
 * would not accept is refused before anything is made ("invalid mode"). Any
 * `mkdir` without `-m` is just-bash's, unchanged.
 *
 * @module
 */
// The interpreter runs with no configuration file, so its import names the exact version.
// deno-lint-ignore no-import-prefix
import type { Command, ExecResult, ResolvedCommandContext } from "npm:just-bash@3.4.2";
import { applyMode } from "./worker-shell-mode.ts";
import { currentUmask } from "./worker-shell-umask.ts";

/** `args` with the mode taken out, the mode, and the operands; undefined without `-m`. */
export function withoutMode(
  args: readonly string[],
): { args: string[]; mode: string; operands: string[] } | undefined {
  const rest: string[] = [];
  const operands: string[] = [];
  let mode: string | undefined;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    if (arg === "--") {
      rest.push(...args.slice(index));
      operands.push(...args.slice(index + 1));
      break;
    }
    if (arg === "-" || !arg.startsWith("-")) {
      rest.push(arg);
      operands.push(arg);
    } else if (arg === "--mode" || arg.startsWith("--mode=")) {
      mode = arg === "--mode" ? args[++index] ?? "" : arg.slice("--mode=".length);
    } else if (!arg.startsWith("--") && arg.includes("m")) {
      // A cluster: `m` takes the rest of it, or the next argument.
      const at = arg.indexOf("m");
      mode = at === arg.length - 1 ? args[++index] ?? "" : arg.slice(at + 1);
      if (at > 1) rest.push(arg.slice(0, at));
    } else {
      rest.push(arg);
    }
  }
  return mode === undefined ? undefined : { args: rest, mode, operands };
}

async function isPresent(ctx: ResolvedCommandContext, path: string): Promise<boolean> {
  try {
    await ctx.fs.lstat(ctx.fs.resolvePath(ctx.cwd, path));
    return true;
  } catch {
    return false;
  }
}

/** Worker Shell's `mkdir`: just-bash's, with `-m` understood (see the module's documentation). */
export const mkdirCommand: Command = {
  name: "mkdir",
  async execute(args: string[], ctx: ResolvedCommandContext): Promise<ExecResult> {
    if (ctx.origCommand === undefined) throw new Error("mkdir needs just-bash's own mkdir");
    const parsed = withoutMode(args);
    if (parsed === undefined) return await ctx.origCommand(args);
    const mode = applyMode(parsed.mode, 0o777, true, currentUmask());
    if (mode === undefined) {
      return { stdout: "", stderr: `mkdir: invalid mode ‘${parsed.mode}’\n`, exitCode: 1 };
    }
    const absent: string[] = [];
    for (const operand of parsed.operands) {
      if (!(await isPresent(ctx, operand))) absent.push(operand);
    }
    const made = await ctx.origCommand(parsed.args);
    for (const operand of absent) {
      const path = ctx.fs.resolvePath(ctx.cwd, operand);
      let isFolder = false;
      try {
        isFolder = (await ctx.fs.lstat(path)).isDirectory;
      } catch {
        // Not made: just-bash's mkdir said why.
      }
      if (isFolder) await ctx.fs.chmod(path, mode);
    }
    return made;
  },
};
