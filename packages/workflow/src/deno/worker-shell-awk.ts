/**
 * `awk` in Worker Shell (WS-156): just-bash's, with the ways of giving a
 * program its variables and its text that scripts use and just-bash read
 * otherwise.
 *
 * - `-v OFS=…` (and `FS`, `ORS`, `RS`, `SUBSEP`, `CONVFMT`, `OFMT`): just-bash
 *   kept such an assignment as a plain variable that its awk never reads as
 *   the separator, so `awk -v OFS=, '{$1=$1; print}'` printed spaces. These
 *   become assignments in a `BEGIN` placed before the program's own (on its
 *   first line, so an error names the program's own line), which just-bash
 *   reads as awk does.
 * - `-vNAME=VALUE` (one word): just-bash read the option and dropped the
 *   assignment. It is passed as `-v NAME=VALUE`.
 * - `NAME=VALUE` operands before the first file (`awk '{…}' OFS=, file`):
 *   just-bash read them as files it could not find. They are given as `-v`,
 *   so a `BEGIN` sees them too, where awk assigns them after `BEGIN`.
 * - `-f FILE`: just-bash refused the option. The program is read from the
 *   Workspace (several `-f` join, one per line).
 * - A one-character field separator (`-F.`, `-F'|'`, `FS="."`) is that
 *   character (worker-shell-awk-separators.ts, WS-186).
 * - `split`'s separator string of several characters is a regular
 *   expression (worker-shell-awk-split.ts, WS-189).
 *
 * Invariant: arguments needing none of these are just-bash's, unchanged; an
 * assignment operand after a file is left as it is.
 *
 * @module
 */
// The interpreter runs with no configuration file, so its import names the exact version.
// deno-lint-ignore no-import-prefix
import type { Command, ExecResult, ResolvedCommandContext } from "npm:just-bash@3.4.2";
import { fieldPowers } from "./worker-shell-awk-powers.ts";
import { literalSeparator, literalSeparatorsIn } from "./worker-shell-awk-separators.ts";
import { splitSeparators } from "./worker-shell-awk-split.ts";

/** The variables awk itself reads, which just-bash reads only when a program assigns them. */
const SPECIAL: ReadonlySet<string> = new Set([
  "FS",
  "OFS",
  "ORS",
  "RS",
  "SUBSEP",
  "CONVFMT",
  "OFMT",
]);

/** An assignment operand: `NAME=VALUE`. */
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** What a command line asks of awk, read as awk reads it. */
interface AwkLine {
  /** Options passed to just-bash's awk, each `-v` assignment as its own two words. */
  readonly options: string[];
  /** Assignments to awk's own variables, in order. */
  readonly special: [name: string, value: string][];
  /** Files that hold the program, when `-f` gave any. */
  readonly programFiles: string[];
  /** The operands: the program first unless `-f` gave it, then files and assignments. */
  readonly operands: string[];
  /** Whether anything differs from what just-bash reads itself. */
  changed: boolean;
}

/** `assignment` (`NAME=VALUE`) into the line: a special one apart, any other as `-v`. */
function assign(line: AwkLine, assignment: string): void {
  const equals = assignment.indexOf("=");
  const name = assignment.slice(0, equals);
  if (equals > 0 && SPECIAL.has(name)) {
    const value = assignment.slice(equals + 1);
    // A one-character field separator is that character (WS-186).
    line.special.push([name, name === "FS" ? literalSeparator(value) : value]);
    line.changed = true;
  } else {
    line.options.push("-v", assignment);
  }
}

/** `-F value`, a one-character separator read as that character (WS-186). */
function separator(line: AwkLine, value: string): void {
  const read = literalSeparator(value);
  line.options.push("-F", read);
  if (read !== value) line.changed = true;
}

/** The command line read as awk reads it, or undefined when it is not one this reads. */
export function readAwkLine(args: readonly string[]): AwkLine | undefined {
  const line: AwkLine = {
    options: [],
    special: [],
    programFiles: [],
    operands: [],
    changed: false,
  };
  let index = 0;
  for (; index < args.length; index++) {
    const arg = args[index];
    if (arg === "--") {
      index++;
      break;
    }
    if (arg === "-" || !arg.startsWith("-")) break;
    if (arg === "-F" || arg === "-v" || arg === "-f") {
      const value = args[++index];
      if (value === undefined) return undefined;
      if (arg === "-F") separator(line, value);
      else if (arg === "-v") assign(line, value);
      else line.programFiles.push(value);
    } else if (arg.startsWith("-v")) {
      assign(line, arg.slice(2));
      line.changed = true;
    } else if (arg.startsWith("-f")) {
      line.programFiles.push(arg.slice(2));
    } else if (arg.startsWith("-F")) {
      separator(line, arg.slice(2));
    } else {
      line.options.push(arg);
    }
  }
  if (line.programFiles.length > 0) line.changed = true;
  const operands = args.slice(index);
  if (line.programFiles.length === 0) {
    const program = operands.shift();
    if (program === undefined) return undefined;
    line.operands.push(program);
  }
  // Assignments before the first file; one after a file is left to just-bash.
  while (operands.length > 0 && ASSIGNMENT.test(operands[0])) {
    assign(line, operands.shift() as string);
    line.changed = true;
  }
  line.operands.push(...operands);
  return line;
}

/** `value` as an awk string literal, whose escapes awk reads as it reads an assignment's. */
function literal(value: string): string {
  return `"${
    value.replace(/\\"|"/g, (quote) => quote === '"' ? '\\"' : quote).replace(/\n/g, "\\n")
  }"`;
}

/** The program with the special assignments before it, on its first line. */
export function withSpecials(program: string, special: readonly [string, string][]): string {
  if (special.length === 0) return program;
  const assignments = special.map(([name, value]) => `${name} = ${literal(value)}`).join("; ");
  return `BEGIN { ${assignments} } ${program}`;
}

async function programText(
  files: readonly string[],
  ctx: ResolvedCommandContext,
): Promise<string | ExecResult> {
  const texts: string[] = [];
  for (const file of files) {
    try {
      texts.push(await ctx.fs.readFile(ctx.fs.resolvePath(ctx.cwd, file)));
    } catch {
      return {
        stdout: "",
        stderr: `awk: cannot open ${file} (No such file or directory)\n`,
        exitCode: 2,
      };
    }
  }
  return texts.join("\n");
}

/** Worker Shell's `awk` (see the module's documentation). */
export const awkCommand: Command = {
  name: "awk",
  async execute(args: string[], ctx: ResolvedCommandContext): Promise<ExecResult> {
    if (ctx.origCommand === undefined) throw new Error("awk needs just-bash's own awk");
    const line = readAwkLine(args);
    if (line === undefined) return await ctx.origCommand(args);
    const [first, ...files] = line.operands;
    let program = first;
    let operands = files;
    if (line.programFiles.length > 0) {
      const text = await programText(line.programFiles, ctx);
      if (typeof text !== "string") return text;
      program = text;
      operands = line.operands;
    }
    // A field raised to a power, which just-bash's awk read as the field of the power (WS-164).
    const read = splitSeparators(literalSeparatorsIn(fieldPowers(program)));
    if (!line.changed && read === program) return await ctx.origCommand(args);
    return await ctx.origCommand([
      ...line.options,
      withSpecials(read, line.special),
      ...operands,
    ]);
  },
};
