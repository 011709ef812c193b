/**
 * `od` in Worker Shell (WS-141), as GNU od dumps bytes. just-bash's `od`
 * read a joined type (`-tx1`) as octal, had no `-A`, `-N`, `-j` or `-w`,
 * printed `-x`, `-d` and `-t u1` as octal bytes, and spaced its columns
 * otherwise. This one reads GNU's options: `-A d|o|x|n` (the offsets'
 * radix), `-t` with `a`, `c`, `d`, `o`, `u` and `x` (sizes 1, 2, 4, 8 or `C`,
 * `S`, `I`, `L`; `z` adds the printable characters), the traditional `-b`,
 * `-c`, `-d`, `-i`, `-l`, `-o`, `-s`, `-x`, `-N` and `-j` (decimal, `0x` hex
 * or leading-0 octal, with `b`, `k`/`K`, `m`/`M` units), `-w[N]` and `-v`;
 * several types each get their own line under one offset, aligned as GNU
 * aligns them, and a line equal to the one before is one `*` unless `-v`.
 * Values are little-endian, as on the machines GNU od usually runs on. A
 * floating-point type, or an option this does not know, is just-bash's `od`,
 * unchanged.
 *
 * @module
 */
// The interpreter runs with no configuration file, so its import names the exact version.
// deno-lint-ignore no-import-prefix
import type { Command, ExecResult, ResolvedCommandContext } from "npm:just-bash@3.4.2";
import { refusalWords } from "./worker-shell-errno-words.ts";
import { concatenatedInputs } from "./worker-shell-input-bytes.ts";

/** One output type: its letter, its size in bytes, and whether printable characters follow. */
interface Spec {
  kind: "a" | "c" | "d" | "o" | "u" | "x";
  size: number;
  printable: boolean;
}

interface OdOptions {
  radix: "d" | "o" | "x" | "n";
  specs: Spec[];
  skip: number;
  limit: number | undefined;
  width: number;
  all: boolean;
  files: string[];
}

/** Why `args` are not ones this command reads (just-bash's `od` then runs them). */
class NotOurs extends Error {
  constructor() {
    super("not GNU od options this command reads");
    this.name = "NotOurs";
  }
}

/** A refused option, in GNU's words (status 1). */
class OdUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "OdUsageError";
  }
}

const SIZES: Readonly<Record<string, number>> = { C: 1, S: 2, I: 4, L: 8 };
const TRADITIONAL: Readonly<Record<string, string>> = {
  b: "o1",
  c: "c",
  d: "u2",
  i: "dI",
  l: "dL",
  o: "o2",
  s: "d2",
  x: "x2",
};

/** The types one `-t` argument names. */
function specsOf(text: string): Spec[] {
  const specs: Spec[] = [];
  let at = 0;
  while (at < text.length) {
    const kind = text[at++];
    if (kind === "f") throw new NotOurs();
    if (!"acdoux".includes(kind)) {
      throw new OdUsageError(`invalid character '${kind}' in type string ‘${text}’`);
    }
    let size = kind === "a" || kind === "c" ? 1 : 4;
    if (kind !== "a" && kind !== "c") {
      const digits = /^\d+/.exec(text.slice(at));
      if (digits) {
        size = Number(digits[0]);
        at += digits[0].length;
        if (![1, 2, 4, 8].includes(size)) {
          throw new OdUsageError(
            `invalid type string '${text}';\nthis system doesn't provide a ${size}-byte integral type`,
          );
        }
      } else if (text[at] in SIZES) size = SIZES[text[at++]];
    }
    const printable = text[at] === "z";
    if (printable) at++;
    specs.push({ kind: kind as Spec["kind"], size, printable });
  }
  return specs;
}

/** A byte count as GNU od reads one (`-N`, `-j`). */
function countOf(text: string, option: string): number {
  const match = /^(0x[0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)(b|k|K|m|M)?$/.exec(text);
  if (!match) throw new OdUsageError(`invalid ${option} argument '${text}'`);
  const [, digits, unit] = match;
  const value = digits.startsWith("0x")
    ? parseInt(digits.slice(2), 16)
    : digits.startsWith("0") && digits.length > 1
    ? parseInt(digits, 8)
    : Number(digits);
  const scale = unit === "b" ? 512 : unit === "k" || unit === "K" ? 1024 : unit ? 1024 * 1024 : 1;
  return value * scale;
}

/** `args` as GNU od reads them. */
export function readOdArgs(args: readonly string[]): OdOptions {
  const options: OdOptions = {
    radix: "o",
    specs: [],
    skip: 0,
    limit: undefined,
    width: 16,
    all: false,
    files: [],
  };
  const valued = (option: string, value: string) => {
    if (option === "A") {
      if (!/^[doxn]$/.test(value)) {
        throw new OdUsageError(
          `invalid output address radix '${value}'; it must be one character from [doxn]`,
        );
      }
      options.radix = value as OdOptions["radix"];
    } else if (option === "t") options.specs.push(...specsOf(value));
    else if (option === "N") options.limit = countOf(value, "--read-bytes");
    else if (option === "j") options.skip = countOf(value, "--skip-bytes");
    else if (option === "w") options.width = value === "" ? 32 : countOf(value, "--width");
  };
  const LONG: Readonly<Record<string, string>> = {
    "--address-radix": "A",
    "--format": "t",
    "--read-bytes": "N",
    "--skip-bytes": "j",
    "--width": "w",
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
      const [name] = arg.split("=", 1);
      const value = arg.length > name.length ? arg.slice(name.length + 1) : undefined;
      if (name === "--output-duplicates") options.all = true;
      else if (name === "--width") valued("w", value ?? "");
      else if (name in LONG) valued(LONG[name], value ?? args[++index] ?? "");
      else throw new NotOurs();
      continue;
    }
    for (let at = 1; at < arg.length; at++) {
      const letter = arg[at];
      if (letter === "v") options.all = true;
      else if (letter in TRADITIONAL) options.specs.push(...specsOf(TRADITIONAL[letter]));
      else if (letter === "w") {
        valued("w", arg.slice(at + 1));
        break;
      } else if ("AtNj".includes(letter)) {
        valued(letter, at + 1 < arg.length ? arg.slice(at + 1) : args[++index] ?? "");
        break;
      } else throw new NotOurs();
    }
  }
  if (options.specs.length === 0) options.specs.push(...specsOf("o2"));
  if (options.width <= 0) throw new OdUsageError(`invalid --width argument '${options.width}'`);
  return options;
}

/** Characters a value of `spec` takes (before the space that separates it). */
function widthOf(spec: Spec): number {
  switch (spec.kind) {
    case "a":
    case "c":
      return 3;
    case "x":
      return spec.size * 2;
    case "o":
      return Math.ceil((spec.size * 8) / 3);
    case "u":
      return [3, 5, 10, 20][Math.log2(spec.size)];
    case "d":
      return [4, 6, 11, 20][Math.log2(spec.size)];
  }
}

const NAMES = [
  "nul",
  "soh",
  "stx",
  "etx",
  "eot",
  "enq",
  "ack",
  "bel",
  "bs",
  "ht",
  "nl",
  "vt",
  "ff",
  "cr",
  "so",
  "si",
  "dle",
  "dc1",
  "dc2",
  "dc3",
  "dc4",
  "nak",
  "syn",
  "etb",
  "can",
  "em",
  "sub",
  "esc",
  "fs",
  "gs",
  "rs",
  "us",
  "sp",
];
const ESCAPES: Readonly<Record<number, string>> = {
  0: "\\0",
  7: "\\a",
  8: "\\b",
  9: "\\t",
  10: "\\n",
  11: "\\v",
  12: "\\f",
  13: "\\r",
};

/** One value of `spec` at `at` in `block` (zeros past its end), as GNU od writes it, unpadded. */
function valueText(spec: Spec, block: Uint8Array, at: number): string {
  if (spec.kind === "a") {
    const byte = block[at] & 0x7f;
    return byte <= 32 ? NAMES[byte] : byte === 127 ? "del" : String.fromCharCode(byte);
  }
  if (spec.kind === "c") {
    const byte = block[at];
    if (byte in ESCAPES) return ESCAPES[byte];
    return byte >= 32 && byte < 127 ? String.fromCharCode(byte) : byte.toString(8).padStart(3, "0");
  }
  let value = 0n;
  for (let byte = spec.size - 1; byte >= 0; byte--) {
    value = (value << 8n) | BigInt(block[at + byte] ?? 0);
  }
  const bits = BigInt(spec.size * 8);
  if (spec.kind === "d" && value >= 1n << (bits - 1n)) value -= 1n << bits;
  if (spec.kind === "x") return value.toString(16).padStart(spec.size * 2, "0");
  if (spec.kind === "o") return value.toString(8).padStart(widthOf(spec), "0");
  return value.toString();
}

/** The dump of `bytes` (starting at offset `start`) as GNU od writes it under `options`. */
export function dump(bytes: Uint8Array, start: number, options: OdOptions): string {
  const { width, specs } = options;
  const offsetOf = (offset: number) =>
    options.radix === "n"
      ? ""
      : options.radix === "x"
      ? offset.toString(16).padStart(6, "0")
      : options.radix === "d"
      ? String(offset).padStart(7, "0")
      : offset.toString(8).padStart(7, "0");
  const indent = options.radix === "n" ? "" : " ".repeat(offsetOf(0).length);
  const blockWidths = specs.map((spec) => Math.ceil(width / spec.size) * (widthOf(spec) + 1));
  const widest = Math.max(...blockWidths);
  let out = "";
  let previous: Uint8Array | undefined;
  let starred = false;
  for (let at = 0; at < bytes.length; at += width) {
    const block = bytes.subarray(at, at + width);
    if (
      !options.all && previous !== undefined && block.length === width &&
      block.every((byte, index) => byte === previous![index])
    ) {
      if (!starred) out += "*\n";
      starred = true;
      continue;
    }
    starred = false;
    previous = block;
    specs.forEach((spec, index) => {
      let line = index === 0 ? offsetOf(start + at) : indent;
      const fields = Math.ceil(width / spec.size);
      const shown = Math.ceil(block.length / spec.size);
      // The columns of every type line up: the difference is spread over the values.
      const pad = widest - blockWidths[index];
      let left = pad;
      for (let field = 0; field < shown; field++) {
        const next = Math.floor((pad * (fields - field - 1)) / fields);
        line += valueText(spec, block, field * spec.size).padStart(left - next + widthOf(spec) + 1);
        left = next;
      }
      if (spec.printable) {
        const used = line.length - (index === 0 ? offsetOf(0).length : indent.length);
        const text = Array.from(
          block,
          (byte) => byte >= 32 && byte < 127 ? String.fromCharCode(byte) : ".",
        )
          .join("");
        line += `${" ".repeat(widest - used)}  >${text}<`;
      }
      out += `${line}\n`;
    });
  }
  if (options.radix !== "n") out += `${offsetOf(start + bytes.length)}\n`;
  return out;
}

/** Worker Shell's `od` (see the module's documentation). */
export const odCommand: Command = {
  name: "od",
  async execute(args: string[], ctx: ResolvedCommandContext): Promise<ExecResult> {
    let options: OdOptions;
    try {
      options = readOdArgs(args);
    } catch (error) {
      if (error instanceof OdUsageError) {
        return {
          stdout: "",
          stderr: `od: ${error.message}\n`,
          exitCode: 1,
        };
      }
      if (ctx.origCommand === undefined) throw new Error("od needs just-bash's own od");
      return await ctx.origCommand(args);
    }
    let stderr = "";
    const all = await concatenatedInputs(ctx, options.files, (file, error) => {
      stderr += `od: ${file}: ${refusalWords(error)}\n`;
    });
    // Nothing could be read: GNU prints no dump at all.
    if (all === undefined) return { stdout: "", stderr, exitCode: 1 };
    const start = Math.min(options.skip, all.length);
    const end = options.limit === undefined
      ? all.length
      : Math.min(all.length, start + options.limit);
    if (options.skip > all.length && stderr === "") {
      return { stdout: "", stderr: "od: cannot skip past end of combined input\n", exitCode: 1 };
    }
    return {
      stdout: dump(all.subarray(start, end), start, options),
      stderr,
      exitCode: stderr === "" ? 0 : 1,
    };
  },
};
