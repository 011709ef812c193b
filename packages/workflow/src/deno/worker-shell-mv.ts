/**
 * `mv` in Worker Shell: just-bash's, with a refused destination named as
 * GNU's `mv` names it (WS-155; see worker-shell-copy-refusals.ts).
 *
 * @module
 */
// The interpreter runs with no configuration file, so its import names the exact version.
// deno-lint-ignore no-import-prefix
import type { Command, ExecResult, ResolvedCommandContext } from "npm:just-bash@3.4.2";
import { withDestinationNamed } from "./worker-shell-copy-refusals.ts";

/** Worker Shell's `mv`. */
export const mvCommand: Command = {
  name: "mv",
  async execute(args: string[], ctx: ResolvedCommandContext): Promise<ExecResult> {
    if (ctx.origCommand === undefined) throw new Error("mv needs just-bash's own mv");
    return await withDestinationNamed("mv", args, ctx, await ctx.origCommand(args));
  },
};
