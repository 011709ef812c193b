/**
 * `which` in Worker Shell (WS-180): just-bash has none, so `which jq` was
 * "command not found" (status 127) and `if which node >/dev/null; then`
 * took its "missing" branch for every command. It prints, for each name,
 * the path a block would run, as Debian's `which` does:
 *
 * - A name holding a `/` is printed as written when it is an executable
 *   file.
 * - Any other is looked for in each folder of `PATH` (an empty entry is the
 *   working folder, `.`) as an executable file; `-a` prints every match,
 *   not only the first. A command of Worker Shell's own that no folder holds is
 *   at `/usr/bin/NAME` while the Workspace has no `/usr/bin`, where the
 *   interpreter runs it from (`command -v` answers the same).
 * - Builtins and functions are not found (`which cd` prints nothing), as
 *   they are not for a `which` that is a program of its own.
 * - Its status is 0 when every name was found, 1 otherwise (and with no
 *   name); an unknown option is a usage error, status 2.
 *
 * @module
 */
// The interpreter runs with no configuration file, so its import names the exact version.
// deno-lint-ignore no-import-prefix
import type { Command, ExecResult, ResolvedCommandContext } from "npm:just-bash@3.4.2";

const USAGE = "Usage: /usr/bin/which [-a] args\n";

/** Whether an executable file (not a folder) is at `path`. */
async function executableAt(ctx: ResolvedCommandContext, path: string): Promise<boolean> {
  try {
    const stat = await ctx.fs.stat(path);
    return !stat.isDirectory && (stat.mode & 0o111) !== 0;
  } catch {
    return false;
  }
}

/** The paths `name` is found at, in `PATH`'s order: the first only unless `all`. */
async function pathsOf(
  ctx: ResolvedCommandContext,
  name: string,
  all: boolean,
  commands: ReadonlySet<string>,
): Promise<string[]> {
  if (name.includes("/")) {
    return await executableAt(ctx, ctx.fs.resolvePath(ctx.cwd, name)) ? [name] : [];
  }
  const found: string[] = [];
  for (const dir of (ctx.env.get("PATH") ?? "").split(":")) {
    const shown = `${dir === "" ? "." : dir}/${name}`;
    if (!await executableAt(ctx, ctx.fs.resolvePath(ctx.cwd, shown))) continue;
    found.push(shown);
    if (!all) return found;
  }
  if (found.length === 0 && commands.has(name) && !await ctx.fs.exists("/usr/bin")) {
    found.push(`/usr/bin/${name}`);
  }
  return found;
}

export const whichCommand: Command = {
  name: "which",
  trusted: true,
  async execute(args: string[], ctx: ResolvedCommandContext): Promise<ExecResult> {
    let all = false;
    let at = 0;
    for (; at < args.length && args[at].startsWith("-") && args[at] !== "-"; at++) {
      if (args[at] === "--") {
        at++;
        break;
      }
      for (const letter of args[at].slice(1)) {
        if (letter !== "a") {
          return { stdout: USAGE, stderr: `Illegal option -${letter}\n`, exitCode: 2 };
        }
        all = true;
      }
    }
    const commands = new Set(ctx.getRegisteredCommands?.() ?? []);
    let stdout = "";
    let missing = false;
    for (const name of args.slice(at)) {
      const paths = await pathsOf(ctx, name, all, commands);
      if (paths.length === 0) missing = true;
      for (const path of paths) stdout += `${path}\n`;
    }
    return { stdout, stderr: "", exitCode: missing || at === args.length ? 1 : 0 };
  },
};
