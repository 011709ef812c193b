/**
 * `tr` with octal escapes in Worker Shell (WS-130): just-bash's `tr` reads
 * `\0` as the digit 0 and `\NNN` as its digits, so `tr '\n' '\0'` wrote
 * zeros and `tr '\0' '\n'` and `tr -d '\0'` changed nothing, the usual ways
 * to move between NUL-ended and line-ended names. This command spells each
 * octal escape of a set (a backslash and one to three octal digits, below
 * `\200`) as the character it stands for, as GNU tr reads it, and hands the
 * rest to just-bash's `tr` unchanged (`\n`, `\\`, ranges and classes are its
 * own).
 *
 * @module
 */
// The interpreter runs with no configuration file, so its import names the exact version.
// deno-lint-ignore no-import-prefix
import type { Command, ExecResult, ResolvedCommandContext } from "npm:just-bash@3.4.2";

/** `set` with its ASCII octal escapes spelled as their characters. */
export function withOctalEscapes(set: string): string {
  return set.replace(/\\(\\|[0-7]{1,3})/g, (escape, body: string) => {
    if (body === "\\") return escape;
    const code = parseInt(body, 8);
    return code < 0o200 ? String.fromCharCode(code) : escape;
  });
}

/** `args` with each set's octal escapes spelled out; options are left as they are. */
export function octalSets(args: readonly string[]): string[] {
  let operands = false;
  return args.map((arg) => {
    if (!operands && arg === "--") {
      operands = true;
      return arg;
    }
    if (!operands && arg.startsWith("-") && arg !== "-") return arg;
    operands = true;
    return withOctalEscapes(arg);
  });
}

/** Worker Shell's `tr`: just-bash's, with octal escapes understood (see the module's documentation). */
export const trCommand: Command = {
  name: "tr",
  async execute(args: string[], ctx: ResolvedCommandContext): Promise<ExecResult> {
    if (ctx.origCommand === undefined) throw new Error("tr needs just-bash's own tr");
    return await ctx.origCommand(octalSets(args));
  },
};
