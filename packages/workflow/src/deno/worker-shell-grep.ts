/**
 * `grep` in Worker Shell (WS-157): just-bash's, with GNU's reading of the
 * folders `-r` searches and of option clusters.
 *
 * - No file operand: GNU's `grep -r PATTERN` searches the working folder;
 *   just-bash's read its standard input, so `grep -rn TODO` found nothing
 *   and `if grep -rq …` took the wrong branch. `.` is searched, and names
 *   are written as GNU writes them then (`src/a.txt`).
 * - `.` as the one operand: GNU names what it finds `./src/a.txt`, just-bash
 *   `src/a.txt`. Each line of output is given its `./`.
 * - A folder written with a trailing `/` (`src/`): just-bash named files
 *   `src//a.txt`; GNU `src/a.txt`. The slashes are dropped from the operand.
 * - An option with its value at the end of a cluster (`-rm1`, `-inA2`),
 *   which just-bash refused ("invalid option"), is split from the cluster,
 *   with or without `-r`.
 *
 * - A `-P` pattern that starts with a lookbehind or `(?i)` is given in
 *   forms just-bash reads (worker-shell-grep-perl.ts, WS-187).
 *
 * Invariant: but for split clusters and those patterns, a command line without recursion is
 * just-bash's, unchanged; with several operands, names stay just-bash's
 * (`.` among others is not given its `./`).
 *
 * @module
 */
// The interpreter runs with no configuration file, so its import names the exact version.
// deno-lint-ignore no-import-prefix
import type { Command, ExecResult, ResolvedCommandContext } from "npm:just-bash@3.4.2";
import { withPerlPattern } from "./worker-shell-grep-perl.ts";

/** Short options whose value is the rest of their word or the next word. */
const SHORT_WITH_VALUE = new Set(["e", "f", "m", "A", "B", "C", "d", "D"]);

/** Long options whose value may be the next word. */
const LONG_WITH_VALUE = new Set([
  "--regexp",
  "--file",
  "--max-count",
  "--after-context",
  "--before-context",
  "--context",
  "--include",
  "--exclude",
  "--exclude-dir",
  "--exclude-from",
  "--label",
  "--directories",
  "--devices",
  "--binary-files",
  "--group-separator",
]);

/** What the command line asks that this reads. */
interface GrepLine {
  recursive: boolean;
  /** Whether a pattern came from `-e` or `-f`, so every operand is a file. */
  patternGiven: boolean;
  /** Whether file names are left out (`-h`) or records end in NUL (`-z`). */
  plainNames: boolean;
  /** The index in `args` of each operand. */
  operands: number[];
}

function read(args: readonly string[]): GrepLine {
  const line: GrepLine = { recursive: false, patternGiven: false, plainNames: true, operands: [] };
  let options = true;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    if (!options || arg === "-" || !arg.startsWith("-")) {
      line.operands.push(index);
    } else if (arg === "--") {
      options = false;
    } else if (arg.startsWith("--")) {
      const name = arg.split("=", 1)[0];
      if (name === "--recursive" || name === "--dereference-recursive") line.recursive = true;
      if (name === "--regexp" || name === "--file") line.patternGiven = true;
      if (name === "--no-filename" || name === "--null-data") line.plainNames = false;
      if (!arg.includes("=") && LONG_WITH_VALUE.has(name)) index++;
    } else {
      for (let at = 1; at < arg.length; at++) {
        const letter = arg[at];
        if (letter === "r" || letter === "R") line.recursive = true;
        if (letter === "h" || letter === "z") line.plainNames = false;
        if (SHORT_WITH_VALUE.has(letter)) {
          if (letter === "e" || letter === "f") line.patternGiven = true;
          // The value is the rest of this word, or else the next one.
          if (at === arg.length - 1) index++;
          break;
        }
      }
    }
  }
  return line;
}

/**
 * `args` with each cluster that ends in an option and its value split in
 * two (`-rm1` as `-r -m1`): just-bash reads a value only in a word of its
 * own option.
 */
export function splitClusters(args: readonly string[]): string[] {
  const result: string[] = [];
  let options = true;
  for (const arg of args) {
    if (!options || arg === "-" || !arg.startsWith("-") || arg.startsWith("--")) {
      if (arg === "--") options = false;
      result.push(arg);
      continue;
    }
    const at = [...arg].findIndex((letter, index) => index > 0 && SHORT_WITH_VALUE.has(letter));
    if (at > 1) result.push(arg.slice(0, at), `-${arg.slice(at)}`);
    else result.push(arg);
  }
  return result;
}

/** Each line of `text` with `./` before it, but a context group's `--` separator. */
function dotted(text: string): string {
  return text.replace(/^(?!--$)(?=.)/gm, "./");
}

/** Worker Shell's `grep` (see the module's documentation). */
export const grepCommand: Command = {
  name: "grep",
  async execute(args: string[], ctx: ResolvedCommandContext): Promise<ExecResult> {
    if (ctx.origCommand === undefined) throw new Error("grep needs just-bash's own grep");
    // A `-P` pattern's leading lookbehind and `(?i)`, which just-bash's engine refused (WS-187).
    args = withPerlPattern(splitClusters(args), SHORT_WITH_VALUE);
    const line = read(args);
    if (!line.recursive) return await ctx.origCommand(args);
    const files = line.patternGiven ? line.operands : line.operands.slice(1);
    if (!line.patternGiven && line.operands.length === 0) return await ctx.origCommand(args);
    const rewritten = [...args];
    for (const index of files) {
      const trimmed = rewritten[index].replace(/(?<=[^/])\/+$/, "");
      rewritten[index] = trimmed;
    }
    if (files.length === 0) return await ctx.origCommand([...rewritten, "."]);
    const result = await ctx.origCommand(rewritten);
    if (files.length !== 1 || rewritten[files[0]] !== "." || !line.plainNames) return result;
    return { ...result, stdout: dotted(result.stdout) };
  },
};
