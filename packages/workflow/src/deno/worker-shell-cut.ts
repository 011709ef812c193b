/**
 * `cut --output-delimiter` and `--complement` (WS-190), which just-bash's
 * `cut` refused (`unrecognized option`, status 1). With either, this
 * command cuts as GNU cut does:
 *
 * - `-f LIST` (with `-d C`, a tab when not given): the fields of each line
 *   in LIST, in the line's order, each once, joined by the output
 *   delimiter (`-d`'s when not given); a line without the delimiter is
 *   printed whole, or left out under `-s`.
 * - `-c LIST` or `-b LIST`: the bytes in LIST (GNU's `-c` counts bytes too);
 *   the output delimiter goes between ranges that do not touch.
 * - `--complement`: everything LIST does not name.
 * - LIST is numbers and ranges (`N`, `N-M`, `N-`, `-M`) separated by
 *   commas; files are read in turn, `-` and none being standard input;
 *   `-z` ends records with NUL; `-n` is accepted and does nothing.
 *
 * Invariant: a `cut` without `--output-delimiter` or `--complement` is
 * just-bash's, unchanged; so is one with an option this does not read.
 * A usage error is GNU's words, status 1; a file that cannot be read is
 * `cut: FILE: No such file or directory`, and the others are still cut.
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
import { inputLatin1 } from "./worker-shell-input-bytes.ts";

/** A range of 1-based positions, `to` included (Infinity: to the end). */
type Range = [from: number, to: number];

/** What a command line asks of cut. */
interface CutLine {
  mode: "fields" | "bytes";
  list: Range[];
  delimiter: string;
  outputDelimiter?: string;
  complement: boolean;
  onlyDelimited: boolean;
  terminator: string;
  files: string[];
}

/** A refusal of the command line, in GNU's words. */
class CutUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CutUsageError";
  }
}

/** `text` as the latin1 string of its UTF-8 bytes. */
function bytesOf(text: string): string {
  return String.fromCharCode(...new TextEncoder().encode(text));
}

/** LIST read as GNU reads it (for `mode`'s words): its ranges, sorted and merged. */
export function rangesOf(list: string, mode: "fields" | "bytes"): Range[] {
  const refuse = (message: string) => {
    throw new CutUsageError(`${message}\nTry 'cut --help' for more information.`);
  };
  const ranges: Range[] = [];
  for (const item of list.split(",")) {
    const match = /^(\d*)(-?)(\d*)$/.exec(item);
    if (item === "-") refuse("invalid range with no endpoint: -");
    if (!match || item === "") {
      const what = mode === "fields" ? "field value" : "byte/character position";
      // GNU quotes the value in its locale's quotes; these are the C locale's.
      // GNU names the value from its first character that is no digit or range.
      refuse(`invalid ${what} '${item.replace(/^[\d-]*/, "") || item}'`);
      return [];
    }
    const from = match[1] === "" ? 1 : Number(match[1]);
    const to = match[2] === "" ? from : match[3] === "" ? Infinity : Number(match[3]);
    if (from === 0 || to === 0) {
      refuse(
        mode === "fields"
          ? "fields are numbered from 1"
          : "byte/character positions are numbered from 1",
      );
    }
    if (to < from) refuse("invalid decreasing range");
    ranges.push([from, to]);
  }
  ranges.sort((a, b) => a[0] - b[0]);
  const merged: Range[] = [];
  for (const range of ranges) {
    const last = merged.at(-1);
    if (last && range[0] <= last[1] + 1) last[1] = Math.max(last[1], range[1]);
    else merged.push([...range]);
  }
  return merged;
}

/** Whether position `n` is in `ranges`. */
function selected(ranges: readonly Range[], n: number): boolean {
  return ranges.some(([from, to]) => n >= from && n <= to);
}

/** The command line, or undefined when it is not one this cuts (just-bash's then). */
function readLine(args: readonly string[]): CutLine | undefined {
  let mode: CutLine["mode"] | undefined;
  let list: string | undefined;
  const line: Omit<CutLine, "mode" | "list"> = {
    delimiter: "\t",
    complement: false,
    onlyDelimited: false,
    terminator: "\n",
    files: [],
  };
  let ownOptions = false;
  const take = (letter: string, value: string) => {
    if (letter === "d") {
      line.delimiter = bytesOf(value);
      if (line.delimiter.length !== 1) {
        throw new CutUsageError(
          `the delimiter must be a single character\nTry 'cut --help' for more information.`,
        );
      }
    } else {
      if (mode !== undefined) {
        throw new CutUsageError(
          `only one type of list may be specified\nTry 'cut --help' for more information.`,
        );
      }
      mode = letter === "f" ? "fields" : "bytes";
      list = value;
    }
  };
  const LONG: Record<string, string> = {
    "--delimiter": "d",
    "--fields": "f",
    "--characters": "c",
    "--bytes": "b",
  };
  let options = true;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    if (!options || arg === "-" || !arg.startsWith("-")) {
      line.files.push(arg);
    } else if (arg === "--") {
      options = false;
    } else if (arg.startsWith("--")) {
      const [name, value] = arg.includes("=")
        ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
        : [arg, undefined];
      if (name === "--complement") {
        line.complement = ownOptions = true;
      } else if (name === "--output-delimiter") {
        line.outputDelimiter = bytesOf(value ?? args[++index] ?? "");
        ownOptions = true;
      } else if (name === "--only-delimited") {
        line.onlyDelimited = true;
      } else if (name === "--zero-terminated") {
        line.terminator = "\0";
      } else if (LONG[name] !== undefined) {
        take(LONG[name], value ?? args[++index] ?? "");
      } else {
        return undefined;
      }
    } else {
      for (let at = 1; at < arg.length; at++) {
        const letter = arg[at];
        if ("dfcb".includes(letter)) {
          const rest = arg.slice(at + 1);
          take(letter, rest !== "" ? rest : args[++index] ?? "");
          break;
        }
        if (letter === "s") line.onlyDelimited = true;
        else if (letter === "z") line.terminator = "\0";
        else if (letter !== "n") return undefined;
      }
    }
  }
  if (!ownOptions) return undefined;
  if (mode === undefined || list === undefined) {
    throw new CutUsageError(
      `you must specify a list of bytes, characters, or fields\nTry 'cut --help' for more information.`,
    );
  }
  return { ...line, mode, list: rangesOf(list, mode) };
}

/** One record (without its terminator) cut as `line` asks, or undefined to leave it out. */
function cutRecord(record: string, line: CutLine): string | undefined {
  const keep = (n: number) => selected(line.list, n) !== line.complement;
  if (line.mode === "fields") {
    if (!record.includes(line.delimiter)) return line.onlyDelimited ? undefined : record;
    const fields = record.split(line.delimiter);
    return fields.filter((_, index) => keep(index + 1)).join(
      line.outputDelimiter ?? line.delimiter,
    );
  }
  let out = "";
  let previous = -1;
  for (let index = 0; index < record.length; index++) {
    if (!keep(index + 1)) continue;
    if (previous >= 0 && index !== previous + 1 && line.outputDelimiter !== undefined) {
      out += line.outputDelimiter;
    }
    out += record[index];
    previous = index;
  }
  return out;
}

/** Worker Shell's `cut` (see the module's documentation). */
export const cutCommand: Command = {
  name: "cut",
  async execute(args: string[], ctx: ResolvedCommandContext): Promise<ExecResult> {
    if (ctx.origCommand === undefined) throw new Error("cut needs just-bash's own cut");
    let line: CutLine | undefined;
    try {
      line = readLine(args);
    } catch (error) {
      if (!(error instanceof CutUsageError)) throw error;
      return { stdout: "", stderr: `cut: ${error.message}\n`, exitCode: 1 };
    }
    if (line === undefined) return await ctx.origCommand(args);
    let stdout = "";
    let stderr = "";
    let exitCode = 0;
    for (const file of line.files.length === 0 ? ["-"] : line.files) {
      let bytes: string;
      try {
        bytes = await inputLatin1(ctx, file);
      } catch {
        stderr += `cut: ${file}: No such file or directory\n`;
        exitCode = 1;
        continue;
      }
      const records = bytes.split(line.terminator);
      if (records.at(-1) === "") records.pop();
      for (const record of records) {
        const cut = cutRecord(record, line);
        if (cut !== undefined) stdout += cut + line.terminator;
      }
    }
    return { ...bytesOutput(unsafeBytesFromLatin1(stdout)), stderr, exitCode };
  },
};
