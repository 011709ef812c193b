/**
 * `truncate` in Worker Shell (WS-128), which just-bash lacks ("command not
 * found"): GNU truncate's sizes. `-s SIZE` sets each file's size, cutting it
 * or padding it with zero bytes; SIZE is a number with an optional unit (`K`,
 * `M`, `G`, `T`, `P`, `E` are powers of 1,024, with `B` powers of 1,000, with
 * `iB` of 1,024) and an optional sign: `+` extends by, `-` cuts by, `<` at
 * most, `>` at least, `/` rounds down to a multiple of, `%` rounds up to one.
 * `-r FILE` takes FILE's size (as the base of a relative `-s`). A missing file
 * is made unless `-c`. `-o` (sizes in I/O blocks) is refused: a Workspace
 * file has no block size. A size above 256 MiB, the most one file's content
 * can be held as here, is refused as too large. GNU's messages; status 1 when
 * a file could not be set (the others still are).
 *
 * @module
 */
// The interpreter runs with no configuration file, so its import names the exact version.
// deno-lint-ignore no-import-prefix
import type { Command, ExecResult, ResolvedCommandContext } from "npm:just-bash@3.4.2";
import { refusalWords } from "./worker-shell-errno-words.ts";

const HELP = "Try 'truncate --help' for more information.\n";
/** The largest size set: the interpreter holds a file's content whole. */
export const MAX_SIZE = 256 * 1024 * 1024;
const UNITS = "KMGTPE";

type Op = "set" | "+" | "-" | "<" | ">" | "/" | "%";

interface Options {
  size?: { op: Op; value: number };
  reference?: string;
  noCreate: boolean;
  files: string[];
}

/** A usage error: its message (without `truncate: `) and whether GNU adds its `--help` hint. */
class TruncateUsageError extends Error {
  constructor(message: string, readonly hint = true) {
    super(message);
    this.name = "TruncateUsageError";
  }
}

/** SIZE as GNU truncate reads it. */
export function parseSize(text: string): { op: Op; value: number } | undefined {
  const parts = /^([-+<>/%]?)\s*(\d+)(?:([KMGTPEkmgtpe])(B|iB)?)?$/.exec(text);
  if (parts === null) return undefined;
  const op = (parts[1] || "set") as Op;
  let value = Number(parts[2]);
  if (parts[3] !== undefined) {
    const power = UNITS.indexOf(parts[3].toUpperCase()) + 1;
    value *= (parts[4] === "B" ? 1000 : 1024) ** power;
  }
  return Number.isSafeInteger(value) ? { op, value } : undefined;
}

function parseOptions(args: readonly string[]): Options {
  const options: Options = { noCreate: false, files: [] };
  const size = (text: string) => {
    const parsed = parseSize(text);
    if (parsed === undefined) throw new TruncateUsageError(`Invalid number: ‘${text}’`, false);
    options.size = parsed;
  };
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    if (arg === "--") {
      options.files.push(...args.slice(index + 1));
      break;
    }
    if (arg === "-" || !arg.startsWith("-")) {
      options.files.push(arg);
      continue;
    }
    if (arg.startsWith("--")) {
      const [name, value] = arg.slice(2).split(/=(.*)/s, 2);
      if (name === "size" || name === "reference") {
        if (value === undefined && index + 1 >= args.length) {
          throw new TruncateUsageError(`option '--${name}' requires an argument`);
        }
        const given = value ?? args[++index];
        if (name === "size") size(given);
        else options.reference = given;
      } else if (name === "no-create" && value === undefined) {
        options.noCreate = true;
      } else if (name === "io-blocks" && value === undefined) {
        throw new TruncateUsageError("--io-blocks: a Workspace file has no I/O block size", false);
      } else {
        throw new TruncateUsageError(`unrecognized option '${arg}'`);
      }
      continue;
    }
    for (let at = 1; at < arg.length; at++) {
      const letter = arg[at];
      if (letter === "c") options.noCreate = true;
      else if (letter === "o") {
        throw new TruncateUsageError("-o: a Workspace file has no I/O block size", false);
      } else if (letter === "s" || letter === "r") {
        const rest = arg.slice(at + 1);
        if (rest === "" && index + 1 >= args.length) {
          throw new TruncateUsageError(`option requires an argument -- '${letter}'`);
        }
        const given = rest === "" ? args[++index] : rest;
        if (letter === "s") size(given);
        else options.reference = given;
        break;
      } else {
        throw new TruncateUsageError(`invalid option -- '${letter}'`);
      }
    }
  }
  if (options.size === undefined && options.reference === undefined) {
    throw new TruncateUsageError("you must specify either ‘--size’ or ‘--reference’");
  }
  if (options.size?.op === "set" && options.reference !== undefined) {
    throw new TruncateUsageError("you must specify a relative ‘--size’ with ‘--reference’");
  }
  if (options.files.length === 0) throw new TruncateUsageError("missing file operand");
  if ((options.size?.op === "/" || options.size?.op === "%") && options.size.value === 0) {
    throw new TruncateUsageError("division by zero", false);
  }
  return options;
}

/** The size `base` becomes under `size`. */
export function resize(base: number, size: { op: Op; value: number }): number {
  const { op, value } = size;
  switch (op) {
    case "set":
      return value;
    case "+":
      return base + value;
    case "-":
      return Math.max(0, base - value);
    case "<":
      return Math.min(base, value);
    case ">":
      return Math.max(base, value);
    case "/":
      return Math.floor(base / value) * value;
    case "%":
      return Math.ceil(base / value) * value;
  }
}

async function truncate(ctx: ResolvedCommandContext, options: Options): Promise<ExecResult> {
  const fs = ctx.fs;
  const at = (path: string) => fs.resolvePath(ctx.cwd, path);
  let reference: number | undefined;
  if (options.reference !== undefined) {
    try {
      reference = (await fs.stat(at(options.reference))).size;
    } catch (error) {
      return {
        stdout: "",
        stderr: `truncate: cannot stat '${options.reference}': ${refusalWords(error)}\n`,
        exitCode: 1,
      };
    }
  }
  let stderr = "";
  for (const file of options.files) {
    const path = at(file);
    let content: Uint8Array;
    try {
      const stat = await fs.stat(path);
      if (stat.isDirectory) throw new Error("EISDIR");
      content = await fs.readFileBuffer(path);
    } catch (error) {
      const reason = refusalWords(error);
      if (reason !== "No such file or directory") {
        stderr += `truncate: cannot open '${file}' for writing: ${reason}\n`;
        continue;
      }
      if (options.noCreate) continue;
      content = new Uint8Array();
    }
    const base = reference ?? content.length;
    const size = options.size === undefined ? base : resize(base, options.size);
    if (size > MAX_SIZE) {
      stderr += `truncate: failed to truncate '${file}' at ${size} bytes: File too large\n`;
      continue;
    }
    if (size === content.length && content.length > 0) continue;
    const resized = new Uint8Array(size);
    resized.set(size < content.length ? content.subarray(0, size) : content);
    try {
      await fs.writeFile(path, resized);
    } catch (error) {
      stderr += `truncate: cannot open '${file}' for writing: ${refusalWords(error)}\n`;
    }
  }
  return { stdout: "", stderr, exitCode: stderr === "" ? 0 : 1 };
}

/** Worker Shell's `truncate` (see the module's documentation). */
export const truncateCommand: Command = {
  name: "truncate",
  async execute(args: string[], ctx: ResolvedCommandContext): Promise<ExecResult> {
    try {
      return await truncate(ctx, parseOptions(args));
    } catch (error) {
      if (!(error instanceof TruncateUsageError)) throw error;
      return {
        stdout: "",
        stderr: `truncate: ${error.message}\n${error.hint ? HELP : ""}`,
        exitCode: 1,
      };
    }
  },
};
