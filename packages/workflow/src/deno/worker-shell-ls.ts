/**
 * `ls` of several operands in Worker Shell (WS-137), as GNU ls lists them:
 * the operands that are not directories (every one, under `-d`) first, one
 * listing, sorted as entries are (by name, `-S` size, `-t` time, `-r`
 * reversed); then each directory under its `name:` header, a blank line
 * before it when anything was listed already. just-bash's `ls` listed the
 * operands in their order with a blank line after each, so `ls *.txt`
 * printed `a.txt`, an empty line, `b.txt`, and `ls -d` of two folders the
 * same. An operand that does not exist is refused in GNU's words (`ls: cannot access
 * 'x': No such file or directory`, status 2), alone or among others. Each
 * operand's own lines are just-bash's (its `ls` of that one operand); a
 * dangling symbolic link, which just-bash cannot stat, is listed by its name
 * (with `@` under `-F`), or under `-l` by its own line. Under `-l` every line
 * takes its entry's mode from `lstat` (WS-140, `worker-shell-ls-long.ts`).
 * A listing with an option this does not know, or an operand holding a glob
 * character (just-bash's `ls` expands those itself), is just-bash's,
 * unchanged.
 *
 * @module
 */
// The interpreter runs with no configuration file, so its import names the exact version.
// deno-lint-ignore no-import-prefix
import type { Command, ExecResult, ResolvedCommandContext } from "npm:just-bash@3.4.2";
import {
  gnuLongListing,
  type ListingOf,
  markFolders,
  symlinkLine,
} from "./worker-shell-ls-long.ts";

/** just-bash's `ls` options: short letters, and the long names it also accepts. */
const SHORT = new Set("aAlhRrSFdt1");
const LONG: Readonly<Record<string, string>> = {
  "--all": "a",
  "--almost-all": "A",
  "--human-readable": "h",
  "--recursive": "R",
  "--reverse": "r",
  "--classify": "F",
  "--directory": "d",
};

/** Options only Worker Shell reads: `-p` (WS-147), and colour, which a block's output never gets. */
const OWN_LETTERS = new Set("p");
const NO_COLOUR = /^--colou?r(=(never|no|none|auto|tty|if-tty))?$/;

/**
 * An `ls` command line read: its option letters, the options just-bash's
 * `ls` is given (Worker Shell's own taken out), its operands, and the whole
 * command line for just-bash's `ls`.
 */
export interface LsArgs {
  letters: Set<string>;
  options: string[];
  operands: string[];
  forward: string[];
}

/** `args` read as just-bash's `ls` reads them, or undefined when an option is not one of its. */
export function readLsArgs(args: readonly string[]): LsArgs | undefined {
  const read: LsArgs = { letters: new Set(), options: [], operands: [], forward: [] };
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    if (arg === "--") {
      read.operands.push(...args.slice(index + 1));
      read.forward.push(...args.slice(index));
      break;
    }
    if (arg === "-" || !arg.startsWith("-")) {
      read.operands.push(arg);
      read.forward.push(arg);
      continue;
    }
    if (NO_COLOUR.test(arg)) continue;
    const letters = arg.startsWith("--") ? LONG[arg] : arg.slice(1);
    if (
      letters === undefined ||
      [...letters].some((letter) => !SHORT.has(letter) && !OWN_LETTERS.has(letter))
    ) {
      return undefined;
    }
    for (const letter of letters) read.letters.add(letter);
    const theirs = [...letters].filter((letter) => !OWN_LETTERS.has(letter)).join("");
    if (theirs === "") continue;
    const option = arg.startsWith("--") ? arg : `-${theirs}`;
    read.options.push(option);
    read.forward.push(option);
  }
  return read;
}

interface Operand {
  name: string;
  kind: "dir" | "file" | "dangling";
  size: number;
  mtime: number;
}

/** GNU's refusal of an operand that does not exist. */
function missing(name: string): string {
  return `ls: cannot access '${name}': No such file or directory\n`;
}

async function operandOf(ctx: ResolvedCommandContext, name: string): Promise<Operand | undefined> {
  const path = ctx.fs.resolvePath(ctx.cwd, name);
  try {
    const stat = await ctx.fs.stat(path);
    return {
      name,
      kind: stat.isDirectory ? "dir" : "file",
      size: stat.size ?? 0,
      mtime: stat.mtime?.getTime() ?? 0,
    };
  } catch {
    try {
      const stat = await ctx.fs.lstat(path);
      if (!stat.isSymbolicLink) return undefined;
      return { name, kind: "dangling", size: stat.size ?? 0, mtime: stat.mtime?.getTime() ?? 0 };
    } catch {
      return undefined;
    }
  }
}

/** `operands` in the order GNU lists them under `letters`. */
export function sortOperands<T extends { name: string; size: number; mtime: number }>(
  operands: readonly T[],
  letters: ReadonlySet<string>,
): T[] {
  const byName = (a: T, b: T) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
  const order = letters.has("S")
    ? (a: T, b: T) => b.size - a.size || byName(a, b)
    : letters.has("t")
    ? (a: T, b: T) => b.mtime - a.mtime || byName(a, b)
    : byName;
  const sorted = [...operands].sort(order);
  return letters.has("r") ? sorted.reverse() : sorted;
}

/** Worker Shell's `ls`: just-bash's, with GNU's listing of several operands and long lines (see above). */
export const lsCommand: Command = {
  name: "ls",
  async execute(args: string[], ctx: ResolvedCommandContext): Promise<ExecResult> {
    const own = ctx.origCommand;
    if (own === undefined) throw new Error("ls needs just-bash's own ls");
    const read = readLsArgs(args);
    if (read === undefined) return await own(args);
    const long = read.letters.has("l");
    const dirsApart = !read.letters.has("d");
    const classify = read.letters.has("F");
    // `-p` marks folders as `-F` does, and nothing else (WS-147).
    const slashes = read.letters.has("p") && !classify;
    // just-bash's lines for `of`'s entries, GNU's under -l (WS-140) and -p.
    const lines = (text: string, of: ListingOf) =>
      long
        ? gnuLongListing(text, ctx, of, classify, slashes)
        : slashes
        ? markFolders(text, ctx, of, read.letters.has("R"))
        : Promise.resolve(text);
    if (read.operands.length === 0) {
      const result = await own(read.forward);
      return {
        ...result,
        stdout: await lines(result.stdout, dirsApart ? { dir: "." } : { file: "." }),
      };
    }
    if (read.operands.some((operand) => /[*?[]/.test(operand))) return await own(read.forward);
    if (read.operands.length === 1) {
      const [name] = read.operands;
      const operand = long ? await operandOf(ctx, name) : undefined;
      if (operand?.kind === "dangling") {
        return { stdout: `${await symlinkLine(ctx, name, name)}\n`, stderr: "", exitCode: 0 };
      }
      // One operand is just-bash's listing; its refusal of a missing one is reworded.
      const result = await own(read.forward);
      const kind = operand?.kind ?? (slashes ? (await operandOf(ctx, name))?.kind : undefined);
      const of = kind === "dir" && dirsApart ? { dir: name } : { file: name };
      return result.stderr === `ls: ${name}: No such file or directory\n`
        ? { ...result, stderr: missing(name) }
        : { ...result, stdout: await lines(result.stdout, of) };
    }
    const found = await Promise.all(read.operands.map((name) => operandOf(ctx, name)));
    let stderr = "";
    let exitCode = 0;
    read.operands.forEach((name, index) => {
      if (found[index] !== undefined) return;
      stderr += missing(name);
      exitCode = 2;
    });
    const present = found.filter((operand) => operand !== undefined);
    const listOne = async (name: string, of: ListingOf) => {
      const result = await own([...read.options, "--", name]);
      stderr += result.stderr;
      exitCode = Math.max(exitCode, result.exitCode);
      return await lines(result.stdout, of);
    };
    let stdout = "";
    const files = present.filter((operand) => !dirsApart || operand.kind !== "dir");
    for (const operand of sortOperands(files, read.letters)) {
      if (operand.kind !== "dangling") {
        stdout += await listOne(operand.name, { file: operand.name });
      } else if (long) stdout += `${await symlinkLine(ctx, operand.name, operand.name)}\n`;
      else stdout += `${operand.name}${read.letters.has("F") ? "@" : ""}\n`;
    }
    if (!dirsApart) return { stdout, stderr, exitCode };
    const dirs = present.filter((operand) => operand.kind === "dir");
    for (const operand of sortOperands(dirs, read.letters)) {
      if (stdout !== "") stdout += "\n";
      // Under -R just-bash heads the listing with the folder's name itself.
      if (!read.letters.has("R")) stdout += `${operand.name}:\n`;
      stdout += await listOne(operand.name, { dir: operand.name });
    }
    return { stdout, stderr, exitCode };
  },
};
