/**
 * `paste` without a file in Worker Shell (WS-125): just-bash's `paste` wants
 * at least one file operand and prints its usage otherwise, while GNU paste
 * then reads standard input, as in `seq 3 | paste -sd+`. This command adds
 * `-` when no operand is given and hands the rest to just-bash's `paste`
 * unchanged.
 *
 * @module
 */
// The interpreter runs with no configuration file, so its import names the exact version.
// deno-lint-ignore no-import-prefix
import type { Command, ExecResult, ResolvedCommandContext } from "npm:just-bash@3.4.2";

/** Whether `args` (GNU paste's options and operands) name no file. */
export function namesNoFile(args: readonly string[]): boolean {
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    if (arg === "--") return index === args.length - 1;
    if (arg === "-" || !arg.startsWith("-")) return false;
    if (arg === "--delimiters") index++;
    else if (!arg.startsWith("--")) {
      // A cluster: `d` takes the rest of it, or the next argument.
      const at = arg.indexOf("d");
      if (at === arg.length - 1) index++;
    }
  }
  return true;
}

/** Worker Shell's `paste`: just-bash's, reading standard input when no file is named. */
export const pasteCommand: Command = {
  name: "paste",
  async execute(args: string[], ctx: ResolvedCommandContext): Promise<ExecResult> {
    if (ctx.origCommand === undefined) throw new Error("paste needs just-bash's own paste");
    return await ctx.origCommand(namesNoFile(args) ? [...args, "-"] : args);
  },
};
