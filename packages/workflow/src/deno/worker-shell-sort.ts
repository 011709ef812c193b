/**
 * `sort -z` in Worker Shell (WS-129): just-bash's `sort` refuses `-z`
 * (`--zero-terminated`), the half of `find -print0 | sort -z | xargs -0`
 * that keeps names with blanks and newlines whole. This command reads the
 * NUL-ended records itself (its files, or standard input), hands them to
 * just-bash's `sort` one a line, a newline inside a record standing in as a
 * control character the input does not hold (so it still sorts before
 * printable text), and prints the sorted records each ended by NUL, to
 * `-o FILE` when given. Every other option is just-bash's `sort`'s; any
 * `sort` without `-z` is just-bash's, unchanged.
 *
 * @module
 */
// The interpreter runs with no configuration file, so its import names the exact version.
import {
  type Command,
  decodeBytesToUtf8,
  type ExecResult,
  type ResolvedCommandContext,
  // deno-lint-ignore no-import-prefix
} from "npm:just-bash@3.4.2";
import { refusalWords } from "./worker-shell-errno-words.ts";

/** Short options of GNU sort that take a value (the rest of a cluster, or the next argument). */
const VALUED = new Set(["k", "t", "o", "S", "T"]);
const LONG_VALUED = new Set([
  "key",
  "field-separator",
  "output",
  "buffer-size",
  "temporary-directory",
  "parallel",
  "batch-size",
  "compress-program",
  "files0-from",
  "random-source",
  "sort",
]);

interface ZeroSort {
  /** The arguments for just-bash's `sort`: no `-z`, no `-o`, no file. */
  args: string[];
  files: string[];
  output?: string;
}

/** Reads `args` as GNU sort does, when they ask for `-z`; undefined otherwise. */
export function zeroSortOf(args: readonly string[]): ZeroSort | undefined {
  const rest: string[] = [];
  const files: string[] = [];
  let output: string | undefined;
  let zero = false;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    if (arg === "--") {
      files.push(...args.slice(index + 1));
      break;
    }
    if (arg === "-" || !arg.startsWith("-")) {
      files.push(arg);
    } else if (arg.startsWith("--")) {
      const [name, value] = arg.slice(2).split(/=(.*)/s, 2);
      if (name === "zero-terminated") {
        zero = true;
      } else if (name === "output") {
        output = value ?? args[++index];
      } else if (LONG_VALUED.has(name) && value === undefined) {
        rest.push(arg, args[++index]);
      } else {
        rest.push(arg);
      }
    } else {
      let letters = "";
      for (let at = 1; at < arg.length; at++) {
        const letter = arg[at];
        if (letter === "z") {
          zero = true;
          continue;
        }
        if (!VALUED.has(letter)) {
          letters += letter;
          continue;
        }
        const value = at + 1 < arg.length ? arg.slice(at + 1) : args[++index];
        if (letter === "o") output = value;
        else rest.push(`-${letter}`, value ?? "");
        break;
      }
      if (letters !== "") rest.push(`-${letters}`);
    }
  }
  return zero ? { args: rest, files, output } : undefined;
}

/** A control character `text` does not hold, to stand in for a newline inside a record. */
function standIn(text: string): string {
  for (let code = 1; code < 0x20; code++) {
    const char = String.fromCharCode(code);
    if (code !== 0x0a && !text.includes(char)) return char;
  }
  for (let code = 0xe000; code < 0xf900; code++) {
    const char = String.fromCharCode(code);
    if (!text.includes(char)) return char;
  }
  throw new Error("sort -z: no character is free to stand for a newline");
}

function quoted(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

/** The NUL-ended records of `text` (a last one without NUL counts too). */
function records(text: string): string[] {
  if (text === "") return [];
  const parts = text.split("\0");
  if (parts[parts.length - 1] === "") parts.pop();
  return parts;
}

/** Worker Shell's `sort`: just-bash's, with `-z` understood (see the module's documentation). */
export const sortCommand: Command = {
  name: "sort",
  async execute(args: string[], ctx: ResolvedCommandContext): Promise<ExecResult> {
    if (ctx.origCommand === undefined || ctx.exec === undefined) {
      throw new Error("sort needs just-bash's own sort and the shell's exec");
    }
    const zeroSort = zeroSortOf(args);
    if (zeroSort === undefined) return await ctx.origCommand(args);
    const all: string[] = [];
    for (const file of zeroSort.files.length === 0 ? ["-"] : zeroSort.files) {
      if (file === "-") {
        all.push(...records(decodeBytesToUtf8(ctx.stdin)));
        continue;
      }
      try {
        all.push(...records(await ctx.fs.readFile(ctx.fs.resolvePath(ctx.cwd, file))));
      } catch (error) {
        return {
          stdout: "",
          stderr: `sort: cannot read: ${file}: ${refusalWords(error)}\n`,
          exitCode: 2,
        };
      }
    }
    const newline = standIn(all.join(""));
    const lines = all.map((record) => record.replaceAll("\n", newline));
    const sorted = await ctx.exec(`sort ${zeroSort.args.map(quoted).join(" ")}`, {
      cwd: ctx.cwd,
      stdin: lines.length === 0 ? "" : `${lines.join("\n")}\n`,
    });
    const { stderr, exitCode } = sorted;
    if (exitCode !== 0 && sorted.stdout === "") return { stdout: "", stderr, exitCode };
    const out = sorted.stdout.split("\n");
    if (out[out.length - 1] === "") out.pop();
    const stdout = out.map((line) => `${line.replaceAll(newline, "\n")}\0`).join("");
    if (zeroSort.output === undefined) return { stdout, stderr, exitCode };
    try {
      await ctx.fs.writeFile(ctx.fs.resolvePath(ctx.cwd, zeroSort.output), stdout);
    } catch (error) {
      return {
        stdout: "",
        stderr: `sort: open failed: ${zeroSort.output}: ${refusalWords(error)}\n`,
        exitCode: 2,
      };
    }
    return { stdout: "", stderr, exitCode };
  },
};
