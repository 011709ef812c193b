/**
 * `cp -a` in Worker Shell (WS-120): just-bash's `cp` refuses `-a` and
 * `--archive` ("invalid option"), the usual way a script copies a tree as it
 * is. GNU's `-a` is `-R` (links copied as links, WS-35) with every attribute
 * kept (`-p`); this command rewrites it so and hands the rest to just-bash's
 * `cp` unchanged, so every other option means what it meant. A Workspace
 * keeps no times or owners, so what `-p` keeps is the mode.
 *
 * @module
 */
// The interpreter runs with no configuration file, so its import names the exact version.
// deno-lint-ignore no-import-prefix
import type { Command, ExecResult, ResolvedCommandContext } from "npm:just-bash@3.4.2";
import { withDestinationNamed } from "./worker-shell-copy-refusals.ts";

/** `args` with `-a` (alone or in a cluster) and `--archive` spelled as `-R -p`. */
export function withoutArchive(args: readonly string[]): string[] {
  const result: string[] = [];
  let operands = false;
  for (const arg of args) {
    if (operands || arg === "-" || !arg.startsWith("-")) {
      result.push(arg);
    } else if (arg === "--") {
      operands = true;
      result.push(arg);
    } else if (arg === "--archive") {
      result.push("-R", "-p");
    } else if (!arg.startsWith("--") && arg.includes("a")) {
      const rest = arg.slice(1).replaceAll("a", "");
      result.push("-R", "-p");
      if (rest !== "") result.push(`-${rest}`);
    } else {
      result.push(arg);
    }
  }
  return result;
}

/**
 * Worker Shell's `cp`: just-bash's, with `-a` understood (see the module's
 * documentation) and a refused destination named (WS-155).
 */
export const cpCommand: Command = {
  name: "cp",
  async execute(args: string[], ctx: ResolvedCommandContext): Promise<ExecResult> {
    if (ctx.origCommand === undefined) throw new Error("cp needs just-bash's own cp");
    const rewritten = withoutArchive(args);
    return await withDestinationNamed("cp", rewritten, ctx, await ctx.origCommand(rewritten));
  },
};
