/**
 * `xxd` in Worker Shell (WS-142), which just-bash lacks ("command not
 * found"): vim's hex dump, as scripts use it. `xxd [FILE [OUTFILE]]` writes
 * `00000000: 4142 0a                                  AB.` lines (an 8-digit
 * hex offset, the bytes in groups, the printable characters); `-c COLS`
 * bytes a line (16), `-g BYTES` a group (2), `-s OFFSET` and `-l LEN` the
 * part dumped, `-u` upper-case hex; `-p` the plain form (30 bytes a line);
 * `-r` turns a dump back into bytes (`-r -p` from plain hex, ignoring what
 * is not a hex digit). Another option is refused with a message and status
 * 1; a file that cannot be read, status 2, as xxd does.
 *
 * @module
 */
import {
  bytesOutput,
  type Command,
  type ExecResult,
  type ResolvedCommandContext,
  unsafeBytesFromLatin1,
  // The interpreter runs with no configuration file, so its import names the exact version.
  // deno-lint-ignore no-import-prefix
} from "npm:just-bash@3.4.2";
import { refusalWords } from "./worker-shell-errno-words.ts";
import { inputBytes } from "./worker-shell-input-bytes.ts";

interface XxdOptions {
  plain: boolean;
  revert: boolean;
  upper: boolean;
  columns: number | undefined;
  group: number | undefined;
  seek: number;
  length: number | undefined;
  files: string[];
}

/** A refused command line, in xxd's words (status 1). */
class XxdUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "XxdUsageError";
  }
}

function numberOf(text: string | undefined, option: string): number {
  if (text === undefined || !/^(0x[0-9a-fA-F]+|\d+)$/.test(text)) {
    throw new XxdUsageError(`xxd: option ${option} needs a number`);
  }
  return text.startsWith("0x") ? parseInt(text.slice(2), 16) : Number(text);
}

/** `args` as xxd reads them. */
export function readXxdArgs(args: readonly string[]): XxdOptions {
  const options: XxdOptions = {
    plain: false,
    revert: false,
    upper: false,
    columns: undefined,
    group: undefined,
    seek: 0,
    length: undefined,
    files: [],
  };
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    if (arg === "-" || !arg.startsWith("-")) {
      options.files.push(arg);
      continue;
    }
    const name = arg.replace(/^--?/, "");
    // A value follows its option (`-c 8`) or is joined to its letter (`-c8`).
    const spelled = /^(c|cols|g|groupsize|s|seek|l|len)$/.exec(name);
    const joined = /^([cgsl])(.+)$/.exec(name);
    const letter = spelled ? spelled[1][0] : joined?.[1];
    const value = spelled ? args[++index] : joined?.[2];
    if (name === "p" || name === "ps" || name === "postscript" || name === "plain") {
      options.plain = true;
    } else if (name === "r" || name === "revert") options.revert = true;
    else if (name === "u") options.upper = true;
    else if (letter === "c") options.columns = numberOf(value, "-c");
    else if (letter === "g") options.group = numberOf(value, "-g");
    else if (letter === "s") options.seek = numberOf(value, "-s");
    else if (letter === "l") options.length = numberOf(value, "-l");
    else if (name === "rp" || name === "pr") {
      options.revert = true;
      options.plain = true;
    } else {
      throw new XxdUsageError(
        `xxd: ${arg} is not an option Worker Shell's xxd reads (-p, -r, -c, -g, -s, -l, -u)`,
      );
    }
  }
  if (options.files.length > 2) throw new XxdUsageError("xxd: too many file names");
  return options;
}

function printable(byte: number): string {
  return byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : ".";
}

/** `bytes` (from offset `start`) dumped as xxd writes them. */
export function xxdDump(bytes: Uint8Array, start: number, options: XxdOptions): string {
  const hex = (byte: number) => {
    const text = byte.toString(16).padStart(2, "0");
    return options.upper ? text.toUpperCase() : text;
  };
  let out = "";
  if (options.plain) {
    const columns = options.columns || 30;
    for (let at = 0; at < bytes.length; at += columns) {
      out += `${Array.from(bytes.subarray(at, at + columns), hex).join("")}\n`;
    }
    return out;
  }
  const columns = options.columns || 16;
  const group = options.group ?? 2;
  const groups = group === 0 ? 1 : Math.ceil(columns / group);
  const area = columns * 2 + groups - 1;
  for (let at = 0; at < bytes.length; at += columns) {
    const line = bytes.subarray(at, at + columns);
    let text = "";
    line.forEach((byte, index) => {
      if (index > 0 && group > 0 && index % group === 0) text += " ";
      text += hex(byte);
    });
    const offset = (start + at).toString(16).padStart(8, "0");
    out += `${offset}: ${text.padEnd(area)}  ${Array.from(line, printable).join("")}\n`;
  }
  return out;
}

/** The bytes a dump (`text`) stands for, as `xxd -r` (or `-r -p`) reads it. */
export function xxdRevert(text: string, plain: boolean): Uint8Array {
  const bytes: number[] = [];
  const pairs = (hex: string, into: (byte: number) => void) => {
    const digits = hex.replace(/[^0-9a-fA-F]/g, "");
    for (let at = 0; at + 1 < digits.length; at += 2) into(parseInt(digits.slice(at, at + 2), 16));
  };
  if (plain) {
    pairs(text, (byte) => bytes.push(byte));
    return Uint8Array.from(bytes);
  }
  for (const line of text.split("\n")) {
    const match = /^\s*([0-9a-fA-F]+):\s?(.*)$/.exec(line);
    if (!match) continue;
    let position = parseInt(match[1], 16);
    // The hex ends where the printable column begins, after two spaces.
    const area = match[2].split("  ")[0];
    while (bytes.length < position) bytes.push(0);
    pairs(area, (byte) => {
      bytes[position++] = byte;
    });
  }
  return Uint8Array.from(bytes, (byte) => byte ?? 0);
}

/** Worker Shell's `xxd` (see the module's documentation). */
export const xxdCommand: Command = {
  name: "xxd",
  async execute(args: string[], ctx: ResolvedCommandContext): Promise<ExecResult> {
    let options: XxdOptions;
    try {
      options = readXxdArgs(args);
    } catch (error) {
      if (!(error instanceof XxdUsageError)) throw error;
      return { stdout: "", stderr: `${error.message}\n`, exitCode: 1 };
    }
    const [input = "-", output] = options.files;
    let bytes: Uint8Array;
    try {
      bytes = await inputBytes(ctx, input);
    } catch (error) {
      return { stdout: "", stderr: `xxd: ${input}: ${refusalWords(error)}\n`, exitCode: 2 };
    }
    let result: Uint8Array | string;
    if (options.revert) {
      result = xxdRevert(new TextDecoder().decode(bytes), options.plain);
    } else {
      const start = Math.min(options.seek, bytes.length);
      const end = options.length === undefined
        ? bytes.length
        : Math.min(bytes.length, start + options.length);
      result = xxdDump(bytes.subarray(start, end), start, options);
    }
    if (output !== undefined && output !== "-") {
      await ctx.fs.writeFile(ctx.fs.resolvePath(ctx.cwd, output), result);
      return { stdout: "", stderr: "", exitCode: 0 };
    }
    if (typeof result === "string") return { stdout: result, stderr: "", exitCode: 0 };
    const latin1 = Array.from(result, (byte) => String.fromCharCode(byte)).join("");
    return { ...bytesOutput(unsafeBytesFromLatin1(latin1)), stderr: "", exitCode: 0 };
  },
};
