/**
 * `uniq -c`'s counts in Worker Shell (WS-131): just-bash's `uniq -c` pads each
 * count to 4 columns, GNU's to 7 (`      2 b`), so output read by a person or
 * compared with a file written elsewhere (`sort | uniq -c | sort -rn`)
 * differed from bash's on every line. This command runs just-bash's `uniq`
 * and, when it counts, pads each line's count as GNU's `%7d` does. It also
 * writes an output operand (`uniq IN OUT`) itself: just-bash's `uniq` read
 * OUT as a second input and failed ("No such file or directory"). Any other
 * `uniq` is just-bash's, unchanged.
 *
 * @module
 */
// The interpreter runs with no configuration file, so its import names the exact version.
// deno-lint-ignore no-import-prefix
import type { Command, ExecResult, ResolvedCommandContext } from "npm:just-bash@3.4.2";

/** What GNU uniq reads in `args`: whether it counts, and where its operands are. */
export function readArgs(args: readonly string[]): { counts: boolean; operands: number[] } {
  let counts = false;
  const operands: number[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    if (arg === "--") {
      for (let rest = index + 1; rest < args.length; rest++) operands.push(rest);
      break;
    }
    if (arg === "--count") counts = true;
    else if (arg === "-" || !arg.startsWith("-")) operands.push(index);
    else if (!arg.startsWith("--")) {
      // A cluster: `f`, `s` and `w` take the rest of it, or the next argument.
      const at = arg.slice(1).search(/[fsw]/);
      const flags = at < 0 ? arg.slice(1) : arg.slice(1, at + 1);
      if (flags.includes("c")) counts = true;
      if (at >= 0 && at + 2 === arg.length) index++;
    } else if (/^--(skip-fields|skip-chars|check-chars)$/.test(arg)) {
      index++;
    }
  }
  return { counts, operands };
}

/** `text` with each line's leading count padded to 7 columns. */
export function gnuCounts(text: string): string {
  return text.replace(/^ *(\d+) /gm, (_, count: string) => `${count.padStart(7)} `);
}

/** Worker Shell's `uniq`: just-bash's, with GNU's count width (see the module's documentation). */
export const uniqCommand: Command = {
  name: "uniq",
  async execute(args: string[], ctx: ResolvedCommandContext): Promise<ExecResult> {
    if (ctx.origCommand === undefined) throw new Error("uniq needs just-bash's own uniq");
    const { counts, operands } = readArgs(args);
    // An output operand is written here (just-bash's uniq read it as a second input).
    const output = operands.length > 1 ? args[operands[1]] : undefined;
    if (!counts && output === undefined) return await ctx.origCommand(args);
    const result = await ctx.origCommand(
      output === undefined ? args : args.filter((_, index) => index !== operands[1]),
    );
    const stdout = counts ? gnuCounts(result.stdout) : result.stdout;
    if (output === undefined || result.exitCode !== 0) {
      return { stdout, stderr: result.stderr, exitCode: result.exitCode };
    }
    await ctx.fs.writeFile(ctx.fs.resolvePath(ctx.cwd, output), stdout);
    return { stdout: "", stderr: result.stderr, exitCode: 0 };
  },
};
