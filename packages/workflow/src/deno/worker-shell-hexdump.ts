/**
 * `hexdump` and `hd` in Worker Shell (WS-142), which just-bash lacks
 * ("command not found"): util-linux's two forms scripts use. `hexdump -C`
 * (and `hd`) writes the canonical dump: an 8-digit hex offset, sixteen bytes
 * in two groups of eight, and the printable characters between `|`s;
 * `hexdump` alone writes 2-byte little-endian words under a 7-digit offset.
 * Both end with the offset past the last byte, and write a line equal to the
 * one before as one `*` unless `-v`; `-n LENGTH` and `-s OFFSET` choose the
 * part. Another option (`-e`, `-f`, `-b`, `-c`, `-d`, `-o`, `-x`) is refused
 * with a message and status 1.
 *
 * @module
 */
// The interpreter runs with no configuration file, so its import names the exact version.
// deno-lint-ignore no-import-prefix
import type { Command, ExecResult, ResolvedCommandContext } from "npm:just-bash@3.4.2";
import { refusalWords } from "./worker-shell-errno-words.ts";
import { concatenatedInputs } from "./worker-shell-input-bytes.ts";

interface HexdumpOptions {
  canonical: boolean;
  all: boolean;
  skip: number;
  length: number | undefined;
  files: string[];
}

/** A refused command line, in hexdump's words (status 1). */
class HexdumpUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "HexdumpUsageError";
  }
}

function numberOf(text: string | undefined, option: string): number {
  if (text === undefined || !/^(0x[0-9a-fA-F]+|\d+)$/.test(text)) {
    throw new HexdumpUsageError(`hexdump: invalid ${option} argument: '${text ?? ""}'`);
  }
  return text.startsWith("0x") ? parseInt(text.slice(2), 16) : Number(text);
}

/** `args` as hexdump reads them (`canonical` from the start for `hd`). */
export function readHexdumpArgs(args: readonly string[], canonical: boolean): HexdumpOptions {
  const options: HexdumpOptions = { canonical, all: false, skip: 0, length: undefined, files: [] };
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
    if (arg === "--canonical") options.canonical = true;
    else if (arg === "--no-squeezing") options.all = true;
    else if (arg.startsWith("--")) {
      throw new HexdumpUsageError(
        `hexdump: ${arg} is not an option Worker Shell's hexdump reads (-C, -v, -n, -s)`,
      );
    } else {
      for (let at = 1; at < arg.length; at++) {
        const letter = arg[at];
        if (letter === "C") options.canonical = true;
        else if (letter === "v") options.all = true;
        else if (letter === "n" || letter === "s") {
          const value = at + 1 < arg.length ? arg.slice(at + 1) : args[++index];
          if (letter === "n") options.length = numberOf(value, "length");
          else options.skip = numberOf(value, "skip");
          break;
        } else {
          throw new HexdumpUsageError(
            `hexdump: -${letter} is not an option Worker Shell's hexdump reads (-C, -v, -n, -s)`,
          );
        }
      }
    }
  }
  return options;
}

function hex(value: number, digits: number): string {
  return value.toString(16).padStart(digits, "0");
}

/** `bytes` (from offset `start`) dumped as hexdump writes them under `options`. */
export function hexdumpText(bytes: Uint8Array, start: number, options: HexdumpOptions): string {
  if (bytes.length === 0 && options.canonical) return "";
  let out = "";
  let previous: Uint8Array | undefined;
  let starred = false;
  for (let at = 0; at < bytes.length; at += 16) {
    const line = bytes.subarray(at, at + 16);
    if (
      !options.all && previous !== undefined && line.length === 16 &&
      line.every((byte, index) => byte === previous![index])
    ) {
      if (!starred) out += "*\n";
      starred = true;
      continue;
    }
    starred = false;
    previous = line;
    if (options.canonical) {
      let area = "";
      line.forEach((byte, index) => area += `${hex(byte, 2)} ${index === 7 ? " " : ""}`);
      const text = Array.from(
        line,
        (byte) => byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : ".",
      )
        .join("");
      out += `${hex(start + at, 8)}  ${area.padEnd(49)} |${text}|\n`;
    } else {
      let words = "";
      for (let word = 0; word < line.length; word += 2) {
        words += ` ${hex(line[word] | ((line[word + 1] ?? 0) << 8), 4)}`;
      }
      out += `${hex(start + at, 7)}${words.padEnd(40)}\n`;
    }
  }
  out += `${hex(start + bytes.length, options.canonical ? 8 : 7)}\n`;
  return out;
}

function command(name: string, canonical: boolean): Command {
  return {
    name,
    async execute(args: string[], ctx: ResolvedCommandContext): Promise<ExecResult> {
      let options: HexdumpOptions;
      try {
        options = readHexdumpArgs(args, canonical);
      } catch (error) {
        if (!(error instanceof HexdumpUsageError)) throw error;
        return { stdout: "", stderr: `${error.message}\n`, exitCode: 1 };
      }
      let stderr = "";
      const all = await concatenatedInputs(ctx, options.files, (file, error) => {
        stderr += `hexdump: ${file}: ${refusalWords(error)}\n`;
      });
      if (all === undefined) return { stdout: "", stderr, exitCode: 1 };
      const start = Math.min(options.skip, all.length);
      const end = options.length === undefined
        ? all.length
        : Math.min(all.length, start + options.length);
      return {
        stdout: hexdumpText(all.subarray(start, end), start, options),
        stderr,
        exitCode: stderr === "" ? 0 : 1,
      };
    },
  };
}

/** Worker Shell's `hexdump` (see the module's documentation). */
export const hexdumpCommand: Command = command("hexdump", false);

/** Worker Shell's `hd`: `hexdump -C`. */
export const hdCommand: Command = command("hd", true);
