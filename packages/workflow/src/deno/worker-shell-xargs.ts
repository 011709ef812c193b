/**
 * `xargs` in Worker Shell, in place of just-bash's (WS-118). just-bash's own
 * splits its input on blanks only, even with `-I` (so `xargs -I {} mv {} {}.bak`
 * split a name with a space in two), does not read quotes or backslashes,
 * refuses an option's value joined to it (`-I{}`, `-n1`), has no `-L`, `-E`,
 * `-a` or `-s`, and exits with the last command's status. This one follows
 * GNU xargs:
 *
 * - Input: blanks and newlines separate items, and single quotes, double
 *   quotes and a backslash keep blanks inside one (an unmatched quote is an
 *   error); `-0` splits on NUL and `-d C` on the character C, taking every
 *   byte else as it is; `-E EOF` ends the input at an item equal to EOF.
 * - `-I R` (`-i`, `--replace`): each input line is one item, leading blanks
 *   dropped and empty lines skipped, and runs the command once per line with
 *   every R in its arguments replaced by it. `-L N`: N input lines per
 *   command (a line ending in a blank continues on the next). `-n N`: at most
 *   N items per command. `-s N`: command lines of at most N bytes (131,072 by
 *   default, each argument counting its length plus one), so a long input
 *   runs the command more than once, as GNU xargs does.
 * - Without input the command runs once (`-r`: not at all; with `-I`, never).
 * - The status is 0 when every command exits 0, 123 when one exits 1-125,
 *   124 at once when one exits 255, 126 or 127 at once when a command cannot
 *   run or is not found, and 1 for a usage or input error (nothing runs).
 * - `-t` prints each command line on stderr before it runs (on stderr in its
 *   place, but after the commands' output when both go to one file: a
 *   just-bash command gives its two streams whole); `-P N` is
 *   accepted, and its commands run one after another (just-bash runs
 *   nothing concurrently); `-x` is accepted. `-p` and `-o` need a terminal
 *   and are refused.
 *
 * Commands run through the interpreter with the arguments passed apart from
 * the shell's parsing, in the same directory and environment (exported
 * variables and assignments before `xargs`), with empty stdin (GNU gives
 * them `/dev/null`); their output is xargs's, in their order, as text unless
 * one of them wrote bytes.
 *
 * @module
 */
// The interpreter runs with no configuration file, so its import names the exact version.
import {
  bytesOutput,
  type Command,
  decodeBytesToUtf8,
  type ExecResult,
  latin1FromBytes,
  type ResolvedCommandContext,
  stdoutAsBytes,
  stdoutKind,
  unsafeBytesFromLatin1,
  // deno-lint-ignore no-import-prefix
} from "npm:just-bash@3.4.2";

/** GNU xargs' command buffer on Linux: the default `-s`. */
const DEFAULT_MAX_CHARS = 131_072;

const USAGE = `Usage: xargs [OPTION]... COMMAND [INITIAL-ARGS]...
Run COMMAND with arguments INITIAL-ARGS and more arguments read from input.

  -0, --null                   items are separated by a null, not whitespace
  -a, --arg-file=FILE          read arguments from FILE, not standard input
  -d, --delimiter=CHARACTER    items are separated by CHARACTER, not whitespace
  -E END                       set logical EOF string
  -I R                         replace R in INITIAL-ARGS with names read from input
  -i, --replace[=R]            as -I, R defaulting to {}
  -L, --max-lines=MAX-LINES    use at most MAX-LINES non-blank input lines per command line
  -n, --max-args=MAX-ARGS      use at most MAX-ARGS arguments per command line
  -P, --max-procs=MAX-PROCS    accepted; commands run one after another
  -r, --no-run-if-empty        if there are no arguments, do not run COMMAND
  -s, --max-chars=MAX-CHARS    limit length of command line to MAX-CHARS
  -t, --verbose                print commands before executing them
  -x, --exit                   exit if the size (see -s) is exceeded
      --help                   display this help and exit
`;

/** A usage or input error: reported as `xargs: <message>`, status 1, nothing run. */
class XargsUsageError extends Error {
  constructor(message: string, readonly hint = false) {
    super(message);
    this.name = "XargsUsageError";
  }
}

interface Options {
  nul: boolean;
  argFile?: string;
  delimiter?: string;
  eof?: string;
  replace?: string;
  maxLines?: number;
  maxArgs?: number;
  maxChars: number;
  noRunIfEmpty: boolean;
  verbose: boolean;
  command: string[];
  /** GNU's warnings for options that cancel an earlier one. */
  warnings: string[];
}

const BOOLEAN_FLAGS = new Set(["0", "r", "t", "x"]);
const VALUE_FLAGS = new Set(["a", "d", "E", "I", "L", "n", "P", "s"]);
/** Short options whose value is optional and only ever joined to them (`-i{}`, `-l2`). */
const OPTIONAL_VALUE_FLAGS = new Set(["e", "i", "l"]);
const LONG_VALUE = new Map([
  ["arg-file", "a"],
  ["delimiter", "d"],
  ["eof", "e"],
  ["replace", "i"],
  ["max-lines", "l"],
  ["max-args", "n"],
  ["max-procs", "P"],
  ["max-chars", "s"],
]);
const LONG_BOOLEAN = new Map([
  ["null", "0"],
  ["no-run-if-empty", "r"],
  ["verbose", "t"],
  ["exit", "x"],
]);

function count(value: string, option: string, least: number): number {
  if (!/^[0-9]+$/.test(value)) {
    throw new XargsUsageError(`invalid number "${value}" for -${option} option`, true);
  }
  const number = Number(value);
  if (number < least) {
    throw new XargsUsageError(`value ${value} for -${option} option should be >= ${least}`, true);
  }
  return number;
}

/** The delimiter `-d` names: one character, or one escape (`\n`, `\t`, `\0`, `\\`, `\xHH`, `\NNN`). */
function delimiterOf(spec: string): string {
  if ([...spec].length === 1) return spec;
  const escapes: Record<string, string> = {
    "\\n": "\n",
    "\\t": "\t",
    "\\r": "\r",
    "\\0": "\0",
    "\\\\": "\\",
    "\\a": "\x07",
    "\\b": "\b",
    "\\f": "\f",
    "\\v": "\v",
  };
  if (spec in escapes) return escapes[spec];
  const hex = /^\\x([0-9a-fA-F]{1,2})$/.exec(spec);
  if (hex) return String.fromCharCode(parseInt(hex[1], 16));
  const octal = /^\\([0-7]{1,3})$/.exec(spec);
  if (octal && parseInt(octal[1], 8) < 256) return String.fromCharCode(parseInt(octal[1], 8));
  throw new XargsUsageError(
    `invalid input delimiter specification ${spec}: the delimiter must be either a single character or an escape sequence starting with \\.`,
  );
}

function parseOptions(args: readonly string[]): Options | "help" {
  const options: Options = {
    nul: false,
    maxChars: DEFAULT_MAX_CHARS,
    noRunIfEmpty: false,
    verbose: false,
    command: [],
    warnings: [],
  };
  const exclusive = (earlier: string, later: string, previous: string) =>
    options.warnings.push(
      `warning: options ${earlier} and ${later} are mutually exclusive, ignoring previous ${previous} value`,
    );
  const apply = (flag: string, value: string | undefined): void => {
    switch (flag) {
      case "0":
        options.nul = true;
        return;
      case "r":
        options.noRunIfEmpty = true;
        return;
      case "t":
        options.verbose = true;
        return;
      case "x":
      case "P":
        if (flag === "P" && value !== undefined) count(value, "P", 0);
        return;
      case "a":
        options.argFile = value;
        return;
      case "d":
        options.delimiter = delimiterOf(value!);
        return;
      case "E":
      case "e":
        options.eof = value === "" ? undefined : value;
        return;
      case "I":
      case "i":
        if (options.maxArgs !== undefined) {
          exclusive("--max-args", "--replace/-I/-i", "--max-args");
        }
        if (options.maxLines !== undefined) {
          exclusive("--max-lines", "--replace/-I/-i", "--max-lines");
        }
        options.replace = value === undefined || (flag === "i" && value === "") ? "{}" : value;
        options.maxLines = undefined;
        options.maxArgs = undefined;
        return;
      case "L":
      case "l":
        if (options.maxArgs !== undefined) exclusive("--max-args", "-L", "--max-args");
        if (options.replace !== undefined) exclusive("--replace", "-L", "--replace");
        options.maxLines = value === undefined || value === "" ? 1 : count(value, "L", 1);
        options.maxArgs = undefined;
        options.replace = undefined;
        return;
      case "n":
        if (options.maxLines !== undefined) {
          exclusive("--max-lines", "--max-args/-n", "--max-lines");
        }
        options.maxLines = undefined;
        // After -I, -n changes nothing (GNU xargs says nothing either).
        if (options.replace === undefined) options.maxArgs = count(value!, "n", 1);
        else count(value!, "n", 1);
        return;
      case "s":
        options.maxChars = count(value!, "s", 1);
        return;
    }
  };
  let index = 0;
  for (; index < args.length; index++) {
    const arg = args[index];
    if (arg === "--") {
      index++;
      break;
    }
    if (arg === "--help") return "help";
    if (arg.startsWith("--")) {
      const [name, value] = arg.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
      const short = LONG_BOOLEAN.get(name);
      if (short !== undefined && value === undefined) {
        apply(short, undefined);
        continue;
      }
      const valued = LONG_VALUE.get(name);
      if (valued === undefined) throw new XargsUsageError(`unrecognized option '${arg}'`, true);
      if (OPTIONAL_VALUE_FLAGS.has(valued)) {
        apply(valued, value ?? "");
        continue;
      }
      if (value !== undefined) {
        apply(valued, value);
        continue;
      }
      if (index + 1 >= args.length) {
        throw new XargsUsageError(`option '${arg}' requires an argument`, true);
      }
      apply(valued, args[++index]);
      continue;
    }
    if (!arg.startsWith("-") || arg === "-") break;
    for (let at = 1; at < arg.length; at++) {
      const flag = arg[at];
      if (BOOLEAN_FLAGS.has(flag)) {
        apply(flag, undefined);
      } else if (OPTIONAL_VALUE_FLAGS.has(flag)) {
        apply(flag, arg.slice(at + 1));
        break;
      } else if (VALUE_FLAGS.has(flag)) {
        const joined = arg.slice(at + 1);
        if (joined !== "") {
          apply(flag, joined);
        } else if (index + 1 < args.length) {
          apply(flag, args[++index]);
        } else {
          throw new XargsUsageError(`option requires an argument -- '${flag}'`, true);
        }
        break;
      } else if (flag === "p" || flag === "o") {
        throw new XargsUsageError(`-${flag} needs a terminal, which Worker Shell has not`);
      } else {
        throw new XargsUsageError(`invalid option -- '${flag}'`, true);
      }
    }
  }
  options.command = args.slice(index);
  if (options.command.length === 0) options.command = ["echo"];
  return options;
}

/** One input line's items (quotes and backslashes read), and whether it ends in a blank. */
interface Line {
  items: string[];
  continues: boolean;
}

/**
 * Splits `text` into lines of items as GNU xargs reads its default input:
 * blanks separate items, a newline ends a line, quotes and a backslash keep
 * what they hold in one item. With `wholeLines` (for `-I`) blanks separate
 * nothing: a line (its leading blanks dropped) is one item. Stops at an
 * item equal to `eof`.
 */
function readLines(text: string, wholeLines: boolean, eof: string | undefined): Line[] {
  const lines: Line[] = [];
  let items: string[] = [];
  let item = "";
  let started = false;
  let quote: "'" | '"' | undefined;
  let ended = false;
  const endItem = (): boolean => {
    if (!started) return true;
    if (eof !== undefined && item === eof) return false;
    items.push(item);
    item = "";
    started = false;
    return true;
  };
  for (let at = 0; at < text.length && !ended; at++) {
    const char = text[at];
    if (quote !== undefined) {
      if (char === quote) quote = undefined;
      else if (char === "\n") {
        throw new XargsUsageError(
          `unmatched ${
            quote === "'" ? "single" : "double"
          } quote; by default quotes are special to xargs unless you use the -0 option`,
        );
      } else item += char;
      continue;
    }
    if (char === "\n") {
      const blankBefore = at > 0 && (text[at - 1] === " " || text[at - 1] === "\t") && !wholeLines;
      if (wholeLines) item = item.replace(/^[ \t]+/, "");
      if (wholeLines && item === "" && !started) continue;
      if (!endItem()) {
        ended = true;
        break;
      }
      if (items.length > 0) lines.push({ items, continues: blankBefore });
      items = [];
      continue;
    }
    if ((char === " " || char === "\t") && !wholeLines) {
      if (!endItem()) {
        ended = true;
        break;
      }
      continue;
    }
    if (char === "'" || char === '"') {
      quote = char;
      started = true;
      continue;
    }
    if (char === "\\") {
      at++;
      if (at < text.length) item += text[at];
      started = true;
      continue;
    }
    if (wholeLines && !started && (char === " " || char === "\t")) continue;
    item += char;
    started = true;
  }
  if (quote !== undefined) {
    throw new XargsUsageError(
      `unmatched ${
        quote === "'" ? "single" : "double"
      } quote; by default quotes are special to xargs unless you use the -0 option`,
    );
  }
  if (!ended) {
    if (wholeLines) item = item.replace(/^[ \t]+/, "");
    if (endItem() && items.length > 0) lines.push({ items, continues: false });
  }
  return lines;
}

/** Items separated by `delimiter` (`-0`, `-d`): taken as they are; a final delimiter ends the last. */
function splitOn(text: string, delimiter: string): string[] {
  if (text === "") return [];
  const items = text.split(delimiter);
  if (items[items.length - 1] === "") items.pop();
  return items;
}

function byteLength(text: string): number {
  return new TextEncoder().encode(text).length;
}

/** The command lines to run, each a list of arguments beginning with the command. */
function commandLines(options: Options, input: string): string[][] {
  const { command } = options;
  const size = (args: readonly string[]) => args.reduce((sum, arg) => sum + byteLength(arg) + 1, 0);
  const base = size(command);
  if (base > options.maxChars) throw new XargsUsageError("argument line too long");
  const separated = options.nul || options.delimiter !== undefined;
  if (options.replace !== undefined) {
    const replace = options.replace;
    const items = separated
      ? splitOn(input, options.nul ? "\0" : options.delimiter!)
      : readLines(input, true, options.eof).map((line) => line.items[0]);
    return items.map((item) => command.map((arg) => arg.replaceAll(replace, item)));
  }
  const lines: string[][] = separated
    ? splitOn(input, options.nul ? "\0" : options.delimiter!).map((item) => [item])
    : joinContinued(readLines(input, false, options.eof));
  const result: string[][] = [];
  let current: string[] = [];
  let currentSize = base;
  let linesTaken = 0;
  const flush = () => {
    if (current.length > 0) result.push([...command, ...current]);
    current = [];
    currentSize = base;
    linesTaken = 0;
  };
  for (const line of lines) {
    for (const item of line) {
      const itemSize = byteLength(item) + 1;
      if (base + itemSize > options.maxChars) throw new XargsUsageError("argument line too long");
      if (currentSize + itemSize > options.maxChars) flush();
      if (options.maxArgs !== undefined && current.length >= options.maxArgs) flush();
      current.push(item);
      currentSize += itemSize;
    }
    if (options.maxLines !== undefined && separated === false && ++linesTaken >= options.maxLines) {
      flush();
    }
  }
  flush();
  if (result.length === 0 && !options.noRunIfEmpty) result.push([...command]);
  return result;
}

/** Input lines as `-L` counts them: a line ending in a blank continues on the next. */
function joinContinued(lines: Line[]): string[][] {
  const joined: string[][] = [];
  let pending: string[] = [];
  for (const line of lines) {
    pending.push(...line.items);
    if (!line.continues) {
      joined.push(pending);
      pending = [];
    }
  }
  if (pending.length > 0) joined.push(pending);
  return joined;
}

function singleQuoted(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** Runs each command line in turn, and gives xargs's output and status. */
async function run(
  lines: string[][],
  options: Options,
  ctx: ResolvedCommandContext,
): Promise<ExecResult> {
  const results: ExecResult[] = [];
  let stderr = "";
  let exitCode = 0;
  const finish = (code: number): ExecResult => {
    const bytes = results.some((result) => stdoutKind(result) === "bytes");
    const stdout = bytes
      ? results.map((result) => latin1FromBytes(stdoutAsBytes(result))).join("")
      : results.map((result) => result.stdout).join("");
    const errors = results.map((result) => result.stderr).join("") + stderr;
    const output = bytes ? bytesOutput(unsafeBytesFromLatin1(stdout)) : { stdout };
    return { ...output, stderr: errors, exitCode: code };
  };
  for (const [name, ...args] of lines) {
    if (options.verbose) {
      results.push({ stdout: "", stderr: `${[name, ...args].join(" ")}\n`, exitCode: 0 });
    }
    if (ctx.exec === undefined) throw new Error("xargs needs the interpreter's exec");
    // The command's environment is xargs's: the exported variables and any assignment before
    // `xargs`, given as assignments before the command so that it exports them on in turn
    // (just-bash's own xargs passed none).
    const assignments = Object.entries(ctx.exportedEnv ?? {})
      .filter(([variable]) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(variable))
      .map(([variable, value]) => `${variable}=${singleQuoted(value)} `)
      .join("");
    const result = await ctx.exec(assignments + singleQuoted(name), {
      cwd: ctx.cwd,
      signal: ctx.signal,
      args,
    });
    results.push(result);
    if (result.exitCode === 255) {
      stderr += `xargs: ${name}: exited with status 255; aborting\n`;
      return finish(124);
    }
    if (result.exitCode === 126 || result.exitCode === 127) return finish(result.exitCode);
    if (result.exitCode > 125) return finish(125);
    if (result.exitCode !== 0) exitCode = 123;
  }
  return finish(exitCode);
}

/** Worker Shell's `xargs` (see the module's documentation). */
export const xargsCommand: Command = {
  name: "xargs",
  async execute(args: string[], ctx: ResolvedCommandContext): Promise<ExecResult> {
    try {
      const options = parseOptions(args);
      if (options === "help") return { stdout: USAGE, stderr: "", exitCode: 0 };
      let input: string;
      if (options.argFile !== undefined) {
        const path = ctx.fs.resolvePath(ctx.cwd, options.argFile);
        try {
          input = await ctx.fs.readFile(path);
        } catch {
          throw new XargsUsageError(
            `Cannot open input file '${options.argFile}': No such file or directory`,
          );
        }
      } else {
        input = decodeBytesToUtf8(ctx.stdin);
      }
      const warnings = options.warnings.map((warning) => `xargs: ${warning}\n`).join("");
      const result = await run(commandLines(options, input), options, ctx);
      return { ...result, stderr: warnings + result.stderr };
    } catch (error) {
      if (!(error instanceof XargsUsageError)) throw error;
      const hint = error.hint ? "Try 'xargs --help' for more information.\n" : "";
      return { stdout: "", stderr: `xargs: ${error.message}\n${hint}`, exitCode: 1 };
    }
  },
};
