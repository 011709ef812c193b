/**
 * Which path a refused `cp` or `mv` is about (WS-155). just-bash's `cp` and
 * `mv` read any "no such file" while copying or moving as the source being
 * missing (`cp: cannot stat 'a': No such file or directory`), because its
 * own filesystem creates a destination's missing folders. The Workspace does
 * not, so `cp a build/a` with no `build` named `a`, which exists, and sent
 * the reader after the wrong path. After just-bash's command has run, each
 * such line whose source does exist is said as GNU says it: `cp: cannot
 * create regular file 'build/a'` (`directory` for a folder with `-r`),
 * `mv: cannot move 'a' to 'build/a'`, each `: No such file or directory`.
 *
 * Invariant: only a line naming a source that exists changes; the status,
 * stdout and every other line are just-bash's.
 *
 * @module
 */
// The interpreter runs with no configuration file, so its import names the exact version.
// deno-lint-ignore no-import-prefix
import type { ExecResult, ResolvedCommandContext } from "npm:just-bash@3.4.2";

/** The operands of `args`: what is neither an option nor the `--` that ends them. */
function operands(args: readonly string[]): string[] {
  const result: string[] = [];
  let options = true;
  for (const arg of args) {
    if (options && arg === "--") options = false;
    else if (!options || arg === "-" || !arg.startsWith("-")) result.push(arg);
  }
  return result;
}

async function kind(ctx: ResolvedCommandContext, path: string): Promise<"dir" | "other" | null> {
  try {
    return (await ctx.fs.stat(ctx.fs.resolvePath(ctx.cwd, path))).isDirectory ? "dir" : "other";
  } catch {
    return null;
  }
}

/** `result` with each "cannot stat" line of a source that exists said of its destination. */
export async function withDestinationNamed(
  command: "cp" | "mv",
  args: readonly string[],
  ctx: ResolvedCommandContext,
  result: ExecResult,
): Promise<ExecResult> {
  const prefix = `${command}: cannot stat '`;
  const suffix = "': No such file or directory";
  if (!result.stderr.includes(prefix)) return result;
  const [target, ...reversed] = operands(args).reverse();
  if (target === undefined || reversed.length === 0) return result;
  const intoFolder = await kind(ctx, target) === "dir";
  const lines = result.stderr.split("\n");
  for (const [index, line] of lines.entries()) {
    if (!line.startsWith(prefix) || !line.endsWith(suffix)) continue;
    const source = line.slice(prefix.length, -suffix.length);
    const sourceKind = await kind(ctx, source);
    if (sourceKind === null) continue;
    const name = source.replace(/\/+$/, "").split("/").pop() || source;
    const destination = intoFolder ? `${target.replace(/\/+$/, "")}/${name}` : target;
    lines[index] = command === "mv"
      ? `mv: cannot move '${source}' to '${destination}': No such file or directory`
      : `cp: cannot create ${
        sourceKind === "dir" ? "directory" : "regular file"
      } '${destination}': No such file or directory`;
  }
  return { ...result, stderr: lines.join("\n") };
}
