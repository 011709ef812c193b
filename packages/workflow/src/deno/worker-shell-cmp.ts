/**
 * `cmp` in Worker Shell (WS-134), which just-bash lacks ("command not
 * found"): GNU cmp, the byte-by-byte comparison scripts test with
 * `cmp -s a b`. Status 0 when the files are the same, 1 when they differ, 2
 * when one cannot be read. It says where the first difference is (`a b
 * differ: byte 3, line 1`), or that one file ended first (`cmp: EOF on a
 * after byte 2, in line 1`); `-l` lists every differing byte (its number and
 * both values in octal), `-b` adds the bytes as `cat -v` shows them, `-s`
 * says nothing, `-i SKIP[:SKIP2]` (or operands after the files) skips bytes
 * of each, `-n LIMIT` compares at most LIMIT bytes. A file of `-` (or a
 * missing second file) is standard input.
 *
 * @module
 */
// The interpreter runs with no configuration file, so its import names the exact version.
// deno-lint-ignore no-import-prefix
import type { Command, ExecResult, ResolvedCommandContext } from "npm:just-bash@3.4.2";
import { refusalWords } from "./worker-shell-errno-words.ts";
import { inputBytes } from "./worker-shell-input-bytes.ts";

const HELP = "cmp: Try 'cmp --help' for more information.\n";

interface Options {
  printBytes: boolean;
  verbose: boolean;
  silent: boolean;
  skip: [number, number];
  limit?: number;
  files: string[];
}

/** A usage error: its message (without `cmp: `), status 2. */
class CmpUsageError extends Error {
  constructor(message: string, readonly hint = true) {
    super(message);
    this.name = "CmpUsageError";
  }
}

function count(text: string, option: string): number {
  if (!/^\d+$/.test(text)) throw new CmpUsageError(`invalid ${option} value '${text}'`);
  return Number(text);
}

function parseOptions(args: readonly string[]): Options {
  const options: Options = {
    printBytes: false,
    verbose: false,
    silent: false,
    skip: [0, 0],
    files: [],
  };
  const skips = (text: string) => {
    const [first, second = first] = text.split(":");
    options.skip = [count(first, "--ignore-initial"), count(second, "--ignore-initial")];
  };
  const operands: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    if (arg === "--") {
      operands.push(...args.slice(index + 1));
      break;
    }
    if (arg === "-" || !arg.startsWith("-")) {
      operands.push(arg);
      continue;
    }
    if (arg.startsWith("--")) {
      const [name, value] = arg.slice(2).split(/=(.*)/s, 2);
      if (name === "print-bytes") options.printBytes = true;
      else if (name === "verbose") options.verbose = true;
      else if (name === "quiet" || name === "silent") options.silent = true;
      else if (name === "ignore-initial" || name === "bytes") {
        const given = value ?? args[++index];
        if (given === undefined) throw new CmpUsageError(`option '--${name}' requires an argument`);
        if (name === "bytes") options.limit = count(given, "--bytes");
        else skips(given);
      } else {
        throw new CmpUsageError(`unrecognized option '${arg}'`);
      }
      continue;
    }
    for (let at = 1; at < arg.length; at++) {
      const letter = arg[at];
      if (letter === "b") options.printBytes = true;
      else if (letter === "l") options.verbose = true;
      else if (letter === "s") options.silent = true;
      else if (letter === "i" || letter === "n") {
        const given = at + 1 < arg.length ? arg.slice(at + 1) : args[++index];
        if (given === undefined) {
          throw new CmpUsageError(`option requires an argument -- '${letter}'`);
        }
        if (letter === "n") options.limit = count(given, "--bytes");
        else skips(given);
        break;
      } else {
        throw new CmpUsageError(`invalid option -- '${letter}'`);
      }
    }
  }
  if (operands.length === 0) throw new CmpUsageError("missing operand after 'cmp'");
  if (operands.length > 4) throw new CmpUsageError(`extra operand '${operands[4]}'`);
  if (operands.length > 2) options.skip[0] = count(operands[2], "--ignore-initial");
  if (operands.length > 3) options.skip[1] = count(operands[3], "--ignore-initial");
  options.files = [operands[0], operands[1] ?? "-"];
  return options;
}

/** A byte as `cat -v` shows it. */
function shown(byte: number): string {
  if (byte >= 128) return `M-${shown(byte - 128)}`;
  if (byte === 127) return "^?";
  if (byte < 32) return `^${String.fromCharCode(byte + 64)}`;
  return String.fromCharCode(byte);
}

function octal(byte: number): string {
  return byte.toString(8).padStart(3);
}

async function compare(ctx: ResolvedCommandContext, options: Options): Promise<ExecResult> {
  const [name1, name2] = options.files;
  const contents: Uint8Array[] = [];
  for (const file of options.files) {
    try {
      contents.push(await inputBytes(ctx, file));
    } catch (error) {
      const stderr = options.silent ? "" : `cmp: ${file}: ${refusalWords(error)}\n`;
      return { stdout: "", stderr, exitCode: 2 };
    }
  }
  const limit = options.limit ?? Infinity;
  const a = contents[0].subarray(options.skip[0]);
  const b = contents[1].subarray(options.skip[1]);
  const common = Math.min(a.length, b.length, limit);
  let stdout = "";
  let differs = false;
  const width = String(Math.min(Math.max(a.length, b.length), limit)).length;
  for (let index = 0; index < common; index++) {
    if (a[index] === b[index]) continue;
    differs = true;
    if (options.silent) return { stdout: "", stderr: "", exitCode: 1 };
    if (!options.verbose) {
      let line = 1;
      for (let at = 0; at < index; at++) if (a[at] === 10) line++;
      const bytes = options.printBytes
        ? ` is ${octal(a[index])} ${shown(a[index])} ${octal(b[index])} ${shown(b[index])}`
        : "";
      return {
        stdout: `${name1} ${name2} differ: byte ${index + 1}, line ${line}${bytes}\n`,
        stderr: "",
        exitCode: 1,
      };
    }
    const position = String(index + 1).padStart(width);
    stdout += options.printBytes
      ? `${position} ${octal(a[index])} ${shown(a[index]).padEnd(4)} ${octal(b[index])} ${
        shown(b[index])
      }\n`
      : `${position} ${octal(a[index])} ${octal(b[index])}\n`;
  }
  const ends = [a.length, b.length].map((length) => Math.min(length, limit));
  if (ends[0] === ends[1]) return { stdout, stderr: "", exitCode: differs ? 1 : 0 };
  if (options.silent) return { stdout: "", stderr: "", exitCode: 1 };
  const shorter = ends[0] < ends[1] ? 0 : 1;
  const name = options.files[shorter];
  let stderr: string;
  if (common === 0) {
    stderr = `cmp: EOF on ${name} which is empty\n`;
  } else if (options.verbose) {
    stderr = `cmp: EOF on ${name} after byte ${common}\n`;
  } else {
    let line = 1;
    for (let at = 0; at < common; at++) if (a[at] === 10) line++;
    stderr = `cmp: EOF on ${name} after byte ${common}, in line ${line}\n`;
  }
  return { stdout, stderr, exitCode: 1 };
}

/** Worker Shell's `cmp` (see the module's documentation). */
export const cmpCommand: Command = {
  name: "cmp",
  async execute(args: string[], ctx: ResolvedCommandContext): Promise<ExecResult> {
    try {
      return await compare(ctx, parseOptions(args));
    } catch (error) {
      if (!(error instanceof CmpUsageError)) throw error;
      return {
        stdout: "",
        stderr: `cmp: ${error.message}\n${error.hint ? HELP : ""}`,
        exitCode: 2,
      };
    }
  },
};
