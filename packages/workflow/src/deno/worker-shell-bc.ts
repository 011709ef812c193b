/**
 * `bc` in Worker Shell (WS-181): just-bash has none, so
 * `echo "scale=2; 10/3" | bc` was "command not found" (status 127). This is
 * GNU bc 1.07's language, with its output: numbers of any length computed
 * exactly and truncated, never rounded, to `scale` digits (`3.33`, `.33`
 * with no `0` before the point); `ibase` and `obase` (`FF`, and above 16
 * GNU's spaced digits ` 01 10`); variables, arrays, `define`d functions
 * with `auto` locals, `if`/`while`/`for`, `print`, strings, comments,
 * `length`, `scale`, `sqrt`, `last`, `halt`, `quit`, `limits`; with `-l` the
 * library `s c a l e j` and `scale=20`.
 *
 * - It reads each FILE in turn, then standard input, unless `quit` or
 *   `halt` ends it first; a FILE that cannot be read ends it with
 *   `File NAME is unavailable.`, status 1. Otherwise its status is 0, as
 *   GNU's is, even after errors.
 * - Output lines longer than `BC_LINE_LENGTH` (70 when unset or below 3; 0
 *   never breaks) are broken with a `\` as GNU breaks them: every
 *   character counts, strings' too.
 * - `-l` (`--mathlib`) loads the library; `-q`, `-s`, `-w` and `-i` are
 *   accepted and change nothing; `-h` prints the usage; `-v` a version line
 *   that is not GNU's.
 * - Not done: `read()` (a syntax error here), `warranty`'s text (it prints
 *   nothing), `-s`/`-w`'s warnings about non-POSIX constructs, reference
 *   arrays (`define f(*a[])`), and GNU's `adr=N` in runtime messages
 *   (`Runtime error (func=(main)): Divide by zero`; GNU's is
 *   `(func=(main), adr=3)`, an address in its own bytecode). Standard
 *   output and standard error are each in order, but not in order with
 *   each other (`2>&1` shows the errors after the output). The library's
 *   results are the exact value truncated, where GNU's last digit is
 *   sometimes a unit off (`worker-shell-bc-library.ts`), and after a syntax
 *   error GNU's yacc recovery is approximated (`worker-shell-bc-parse.ts`).
 *
 * @module
 */
import {
  type Command,
  decodeBytesToUtf8,
  type ExecResult,
  type ResolvedCommandContext,
  // The interpreter runs with no configuration file, so its import names the exact version.
  // deno-lint-ignore no-import-prefix
} from "npm:just-bash@3.4.2";
import { BC_LIBRARY } from "./worker-shell-bc-library.ts";
import { BcParser, BcQuit, type BcSource, BcUnavailable } from "./worker-shell-bc-parse.ts";
import { BcHalt, BcRuntime } from "./worker-shell-bc-run.ts";

const USAGE = `usage: bc [options] [file ...]
  -h  --help         print this usage and exit
  -i  --interactive  force interactive mode
  -l  --mathlib      use the predefined math routines
  -q  --quiet        don't print initial banner
  -s  --standard     non-standard bc constructs are errors
  -w  --warn         warn about non-standard bc constructs
  -v  --version      print version information and exit
`;

const LONG_OPTIONS: Record<string, string> = {
  "--help": "h",
  "--interactive": "i",
  "--mathlib": "l",
  "--quiet": "q",
  "--standard": "s",
  "--warn": "w",
  "--version": "v",
};

/** The width GNU breaks lines at for a `BC_LINE_LENGTH` (0: never). */
export function lineLengthOf(setting: string | undefined): number {
  if (setting === undefined) return 70;
  const length = Number.parseInt(/^\s*[-+]?\d+/.exec(setting)?.[0] ?? "0", 10);
  return length === 0 ? 0 : length < 3 ? 70 : length;
}

/** Standard output, broken as GNU breaks it: `length - 2` characters and a `\` a line. */
class BrokenLines {
  text = "";
  private column = 0;

  constructor(private readonly length: number) {}

  write(text: string): void {
    if (this.length === 0) {
      this.text += text;
      return;
    }
    let line = "";
    for (const char of text) {
      if (char === "\n") {
        this.column = 0;
      } else if (++this.column === this.length - 1) {
        line += "\\\n";
        this.column = 1;
      }
      line += char;
    }
    this.text += line;
  }
}

type Options = { library: boolean; files: string[] } | ExecResult;

function optionsOf(args: string[]): Options {
  const files: string[] = [];
  let library = false;
  let at = 0;
  for (; at < args.length; at++) {
    const arg = args[at];
    if (arg === "--") {
      at++;
      break;
    }
    if (!arg.startsWith("-") || arg === "-") break;
    const letters = arg.startsWith("--") ? LONG_OPTIONS[arg] : arg.slice(1);
    if (letters === undefined) {
      return { stdout: USAGE, stderr: `bc: unrecognized option '${arg}'\n`, exitCode: 1 };
    }
    for (const letter of letters) {
      if (letter === "h") return { stdout: USAGE, stderr: "", exitCode: 0 };
      if (letter === "v") return { stdout: "bc 1.07.1 (Worker Shell)\n", stderr: "", exitCode: 0 };
      if (letter === "l") library = true;
      else if (!"iqsw".includes(letter)) {
        return { stdout: USAGE, stderr: `bc: invalid option -- '${letter}'\n`, exitCode: 1 };
      }
    }
  }
  files.push(...args.slice(at));
  return { library, files };
}

export const bcCommand: Command = {
  name: "bc",
  trusted: true,
  async execute(args: string[], ctx: ResolvedCommandContext): Promise<ExecResult> {
    const options = optionsOf(args);
    if (!("library" in options)) return options;
    const out = new BrokenLines(lineLengthOf(ctx.env.get("BC_LINE_LENGTH")));
    let stderr = "";
    const err = (text: string) => stderr += text;
    const runtime = new BcRuntime((text) => out.write(text), err);
    if (options.library) {
      runtime.setScale(20);
      for (const [name, [arity, compute]] of BC_LIBRARY) runtime.defineNative(name, arity, compute);
    }
    const sources: BcSource[] = [];
    for (const file of options.files) {
      try {
        sources.push({
          name: file,
          text: await ctx.fs.readFile(ctx.fs.resolvePath(ctx.cwd, file)),
        });
      } catch {
        sources.push({ name: file, text: undefined });
        break;
      }
    }
    if (sources.every((source) => source.text !== undefined)) {
      sources.push({ name: "(standard_in)", text: decodeBytesToUtf8(ctx.stdin) });
    }
    const parser = new BcParser(sources, err);
    try {
      for (;;) {
        const item = parser.nextItem();
        if (item.kind === "end") break;
        if (item.kind === "define") runtime.define(item.fn);
        else if (item.kind === "run") runtime.run(item.statements);
      }
    } catch (error) {
      if (error instanceof BcUnavailable) {
        return { stdout: out.text, stderr: `${stderr}${error.message}\n`, exitCode: 1 };
      }
      if (error instanceof RangeError) err(`bc: ${error.message}\n`);
      else if (!(error instanceof BcQuit || error instanceof BcHalt)) throw error;
    }
    return { stdout: out.text, stderr, exitCode: 0 };
  },
};
