/**
 * `ln` in Worker Shell (WS-191), as GNU's: just-bash's made `ln -s ../a d/`
 * a link named `d/` (refused: it exists) instead of `d/a`, made no link for
 * `ln -s TARGET` alone, and wrote the Workspace's own words for a refusal
 * (`ln: Cannot link "/link": it already exists (EEXIST)`).
 *
 * - `ln TARGET LINK`, `ln TARGET` (a link named as TARGET's last part, in
 *   the working folder), `ln TARGET… DIR` and `-t DIR` (a link in DIR for
 *   each TARGET, named as its last part); `-T` takes LINK as the link's
 *   name even when it is a folder.
 * - `-s` makes symbolic links (TARGET written as given), else hard links
 *   (TARGET must exist and be no folder); `-f` removes what is in the way
 *   first; `-n` does not follow a LINK that is a symbolic link to a folder;
 *   `-v` prints `'LINK' -> 'TARGET'`.
 * - A refusal is GNU's: `ln: failed to create symbolic link 'LINK': File
 *   exists` (`hard link`, and ` => 'TARGET'` for a hard link's missing
 *   folder, as GNU writes), `ln: failed to access 'TARGET': No such file or
 *   directory`, `ln: TARGET: hard link not allowed for directory`; the
 *   other operands are still linked, and the status is 1.
 *
 * Invariant: an option this does not read (`-r`, `-b`, `-S`) is a usage
 * error in GNU's words, status 1: nothing is linked.
 *
 * @module
 */
// The interpreter runs with no configuration file, so its import names the exact version.
// deno-lint-ignore no-import-prefix
import type { Command, ExecResult, ResolvedCommandContext } from "npm:just-bash@3.4.2";
import { refusalWords } from "./worker-shell-errno-words.ts";

interface LnLine {
  symbolic: boolean;
  force: boolean;
  noDereference: boolean;
  noTargetDirectory: boolean;
  verbose: boolean;
  targetDirectory?: string;
  operands: string[];
}

/** A refusal of the command line, in GNU's words. */
class LnUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LnUsageError";
  }
}

const TRY = "Try 'ln --help' for more information.";

const LONG: Record<string, string> = {
  "--symbolic": "s",
  "--force": "f",
  "--no-dereference": "n",
  "--no-target-directory": "T",
  "--verbose": "v",
  "--logical": "L",
  "--physical": "P",
};

function readLine(args: readonly string[]): LnLine {
  const line: LnLine = {
    symbolic: false,
    force: false,
    noDereference: false,
    noTargetDirectory: false,
    verbose: false,
    operands: [],
  };
  const flag = (letter: string, arg: string) => {
    if (letter === "s") line.symbolic = true;
    else if (letter === "f") line.force = true;
    else if (letter === "n") line.noDereference = true;
    else if (letter === "T") line.noTargetDirectory = true;
    else if (letter === "v") line.verbose = true;
    else if (letter !== "L" && letter !== "P") {
      throw new LnUsageError(
        arg.startsWith("--")
          ? `unrecognized option '${arg}'\n${TRY}`
          : `invalid option -- '${letter}'\n${TRY}`,
      );
    }
  };
  let options = true;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    if (!options || arg === "-" || !arg.startsWith("-")) {
      line.operands.push(arg);
    } else if (arg === "--") {
      options = false;
    } else if (arg.startsWith("--target-directory")) {
      line.targetDirectory = arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : args[++index];
    } else if (arg.startsWith("--")) {
      flag(LONG[arg] ?? "?", arg);
    } else {
      for (let at = 1; at < arg.length; at++) {
        if (arg[at] === "t") {
          line.targetDirectory = at < arg.length - 1 ? arg.slice(at + 1) : args[++index];
          break;
        }
        flag(arg[at], arg);
      }
    }
  }
  if (line.targetDirectory === "") throw new LnUsageError(`missing destination\n${TRY}`);
  if (line.operands.length === 0) throw new LnUsageError(`missing file operand\n${TRY}`);
  return line;
}

/** The last part of `path` (`a` of `x/a/`). */
function lastPart(path: string): string {
  const parts = path.split("/").filter((part) => part !== "");
  return parts.at(-1) ?? path;
}

function join(dir: string, name: string): string {
  return dir.endsWith("/") ? `${dir}${name}` : `${dir}/${name}`;
}

/** Whether `path` is a folder (through a last symbolic link unless `noDereference`). */
async function isFolder(ctx: ResolvedCommandContext, path: string, noDereference: boolean) {
  const at = ctx.fs.resolvePath(ctx.cwd, path);
  try {
    const stat = noDereference ? await ctx.fs.lstat(at) : await ctx.fs.stat(at);
    return stat.isDirectory;
  } catch {
    return false;
  }
}

/** The links to make: [TARGET, LINK] pairs, or GNU's refusal of the operands. */
async function linksOf(ctx: ResolvedCommandContext, line: LnLine): Promise<[string, string][]> {
  const operands = line.operands;
  if (line.targetDirectory !== undefined) {
    if (!await isFolder(ctx, line.targetDirectory, false)) {
      throw new LnUsageError(`target '${line.targetDirectory}' is not a directory`);
    }
    return operands.map((target) => [target, join(line.targetDirectory!, lastPart(target))]);
  }
  if (operands.length === 1) return [[operands[0], join(".", lastPart(operands[0]))]];
  const last = operands[operands.length - 1];
  const targets = operands.slice(0, -1);
  if (line.noTargetDirectory) {
    if (operands.length > 2) throw new LnUsageError(`extra operand '${operands[2]}'\n${TRY}`);
    return [[operands[0], last]];
  }
  if (await isFolder(ctx, last, line.noDereference)) {
    return targets.map((target) => [target, join(last, lastPart(target))]);
  }
  if (operands.length > 2) {
    const exists = await ctx.fs.exists(ctx.fs.resolvePath(ctx.cwd, last));
    throw new LnUsageError(
      exists
        ? `target '${last}' is not a directory`
        : `target '${last}': No such file or directory`,
    );
  }
  return [[operands[0], last]];
}

/** Makes one link; GNU's words for a refusal, or undefined. */
async function link(
  ctx: ResolvedCommandContext,
  line: LnLine,
  target: string,
  name: string,
): Promise<string | undefined> {
  const at = ctx.fs.resolvePath(ctx.cwd, name);
  const kind = line.symbolic ? "symbolic link" : "hard link";
  if (!line.symbolic) {
    try {
      const stat = await ctx.fs.stat(ctx.fs.resolvePath(ctx.cwd, target));
      if (stat.isDirectory) return `ln: ${target}: hard link not allowed for directory\n`;
    } catch (error) {
      return `ln: failed to access '${target}': ${refusalWords(error)}\n`;
    }
  }
  if (line.force) {
    try {
      const existing = await ctx.fs.lstat(at);
      if (existing.isDirectory) return `ln: ${name}: cannot overwrite directory\n`;
      await ctx.fs.rm(at, { force: true });
    } catch {
      // Nothing is in the way.
    }
  }
  try {
    if (line.symbolic) await ctx.fs.symlink(target, at);
    else await ctx.fs.link(ctx.fs.resolvePath(ctx.cwd, target), at);
  } catch (error) {
    const words = refusalWords(error);
    // GNU names the target too when a hard link's folder is missing.
    const to = !line.symbolic && words !== "File exists" ? ` => '${target}'` : "";
    return `ln: failed to create ${kind} '${name}'${to}: ${words}\n`;
  }
  return undefined;
}

/** Worker Shell's `ln` (see the module's documentation). */
export const lnCommand: Command = {
  name: "ln",
  async execute(args: string[], ctx: ResolvedCommandContext): Promise<ExecResult> {
    let line: LnLine;
    let links: [string, string][];
    try {
      line = readLine(args);
      links = await linksOf(ctx, line);
    } catch (error) {
      if (!(error instanceof LnUsageError)) throw error;
      return { stdout: "", stderr: `ln: ${error.message}\n`, exitCode: 1 };
    }
    let stdout = "";
    let stderr = "";
    for (const [target, name] of links) {
      const refused = await link(ctx, line, target, name);
      if (refused) stderr += refused;
      else if (line.verbose) stdout += `'${name}' -> '${target}'\n`;
    }
    return { stdout, stderr, exitCode: stderr === "" ? 0 : 1 };
  },
};
