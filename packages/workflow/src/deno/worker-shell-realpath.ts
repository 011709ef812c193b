/**
 * `realpath` in Worker Shell (WS-119): just-bash has none (`readlink -f` is
 * its nearest). It prints each path as the Workspace resolves it, as GNU
 * realpath does:
 *
 * - By default every component but the last must exist; `-e` wants the last
 *   too, `-m` none (what does not exist is appended as written).
 * - `-s` (`--strip`, `--no-symlinks`) resolves no link, only `.`, `..` and
 *   repeated slashes; `--relative-to=DIR` prints the path relative to DIR
 *   (itself resolved the same way); `-z` ends each with NUL; `-q` prints no
 *   error.
 * - `..` is taken before links, as everywhere in Worker Shell (just-bash
 *   resolves a path's text before it asks the filesystem), so `-L` and `-P`
 *   are accepted and the same.
 * - Its status is 1 when a path could not be resolved (the others are still
 *   printed), and 1 for a usage error.
 *
 * @module
 */
// The interpreter runs with no configuration file, so its import names the exact version.
// deno-lint-ignore no-import-prefix
import type { Command, ExecResult, ResolvedCommandContext } from "npm:just-bash@3.4.2";
import { refusalWords } from "./worker-shell-errno-words.ts";

type Mode = "last-may-miss" | "existing" | "missing" | "strip";

interface Options {
  mode: Mode;
  relativeTo?: string;
  zero: boolean;
  quiet: boolean;
  paths: string[];
}

/** A usage error: `realpath: <message>`, status 1. */
class RealpathUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RealpathUsageError";
  }
}

function parseOptions(args: readonly string[]): Options {
  const options: Options = { mode: "last-may-miss", zero: false, quiet: false, paths: [] };
  const flag = (letter: string) => {
    switch (letter) {
      case "e":
        options.mode = "existing";
        return;
      case "m":
        options.mode = "missing";
        return;
      case "s":
        options.mode = "strip";
        return;
      case "z":
        options.zero = true;
        return;
      case "q":
        options.quiet = true;
        return;
      case "L":
      case "P":
        return;
      default:
        throw new RealpathUsageError(`invalid option -- '${letter}'`);
    }
  };
  const long: Record<string, string> = {
    "canonicalize-existing": "e",
    "canonicalize-missing": "m",
    "strip": "s",
    "no-symlinks": "s",
    "zero": "z",
    "quiet": "q",
    "logical": "L",
    "physical": "P",
  };
  let optionsEnded = false;
  for (const arg of args) {
    if (optionsEnded || !arg.startsWith("-") || arg === "-") {
      options.paths.push(arg);
    } else if (arg === "--") {
      optionsEnded = true;
    } else if (arg.startsWith("--relative-to=")) {
      options.relativeTo = arg.slice("--relative-to=".length);
    } else if (arg.startsWith("--")) {
      const letter = long[arg.slice(2)];
      if (letter === undefined) throw new RealpathUsageError(`unrecognized option '${arg}'`);
      flag(letter);
    } else {
      for (const letter of arg.slice(1)) flag(letter);
    }
  }
  if (options.paths.length === 0) throw new RealpathUsageError("missing operand");
  return options;
}

/** A path the Workspace could not resolve, with the reason GNU realpath gives. */
class Unresolved extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = "Unresolved";
  }
}

function parentOf(path: string): string {
  const at = path.lastIndexOf("/");
  return at <= 0 ? "/" : path.slice(0, at);
}

function join(dir: string, name: string): string {
  return dir === "/" ? `/${name}` : `${dir}/${name}`;
}

/** Links followed while resolving one path before it is refused, as Linux does. */
const MAX_LINKS = 40;

async function resolve(
  ctx: ResolvedCommandContext,
  path: string,
  mode: Mode,
  links = 0,
): Promise<string> {
  const absolute = ctx.fs.resolvePath(ctx.cwd, path);
  if (mode === "strip") return absolute;
  try {
    return await ctx.fs.realpath(absolute);
  } catch (error) {
    if (mode === "existing" || absolute === "/") throw new Unresolved(refusalWords(error));
    // A link whose target is missing resolves to that target.
    const stat = await ctx.fs.lstat(absolute).catch(() => undefined);
    if (stat?.isSymbolicLink) {
      if (links >= MAX_LINKS) throw new Unresolved("Too many levels of symbolic links");
      const target = await ctx.fs.readlink(absolute);
      const next = target.startsWith("/") ? target : join(parentOf(absolute), target);
      return await resolve(ctx, next, mode, links + 1);
    }
    // What exists of the path is resolved; the rest is appended as written.
    const parent = parentOf(absolute);
    const name = absolute.slice(parent === "/" ? 1 : parent.length + 1);
    const resolvedParent = mode === "missing"
      ? await resolve(ctx, parent, "missing")
      : await resolve(ctx, parent, "existing");
    if (mode === "last-may-miss") {
      const stat = await ctx.fs.stat(resolvedParent).catch(() => undefined);
      if (stat === undefined || !stat.isDirectory) throw new Unresolved(refusalWords(error));
    }
    return join(resolvedParent, name);
  }
}

/** `to` relative to the folder `from`, both absolute and resolved. */
function relative(from: string, to: string): string {
  const fromParts = from.split("/").filter(Boolean);
  const toParts = to.split("/").filter(Boolean);
  let shared = 0;
  while (
    shared < fromParts.length && shared < toParts.length && fromParts[shared] === toParts[shared]
  ) shared++;
  const parts = [...fromParts.slice(shared).map(() => ".."), ...toParts.slice(shared)];
  return parts.length === 0 ? "." : parts.join("/");
}

/** Worker Shell's `realpath` (see the module's documentation). */
export const realpathCommand: Command = {
  name: "realpath",
  async execute(args: string[], ctx: ResolvedCommandContext): Promise<ExecResult> {
    let options: Options;
    try {
      options = parseOptions(args);
    } catch (error) {
      if (!(error instanceof RealpathUsageError)) throw error;
      return {
        stdout: "",
        stderr: `realpath: ${error.message}\nTry 'realpath --help' for more information.\n`,
        exitCode: 1,
      };
    }
    let stdout = "";
    let stderr = "";
    let exitCode = 0;
    let base: string | undefined;
    try {
      if (options.relativeTo !== undefined) {
        base = await resolve(ctx, options.relativeTo, options.mode);
      }
    } catch (error) {
      if (!(error instanceof Unresolved)) throw error;
      const message = options.quiet ? "" : `realpath: ${options.relativeTo}: ${error.reason}\n`;
      return { stdout: "", stderr: message, exitCode: 1 };
    }
    for (const path of options.paths) {
      try {
        const resolved = await resolve(ctx, path, options.mode);
        stdout += (base === undefined ? resolved : relative(base, resolved)) +
          (options.zero ? "\0" : "\n");
      } catch (error) {
        if (!(error instanceof Unresolved)) throw error;
        if (!options.quiet) stderr += `realpath: ${path}: ${error.reason}\n`;
        exitCode = 1;
      }
    }
    return { stdout, stderr, exitCode };
  },
};
