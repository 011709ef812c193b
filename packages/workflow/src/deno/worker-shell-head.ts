/**
 * `head -n -N` and `head -c -N` in Worker Shell (WS-121): just-bash's `head`
 * refuses a negative count ("invalid number of lines"), GNU's way to print
 * all but the last N lines or bytes (`head -n -1` drops a trailing line).
 * This command prints those itself, for standard input or each file (with
 * GNU's `==> name <==` headers for more than one, or with `-v`, never with
 * `-q`); any other `head` is just-bash's, unchanged.
 *
 * @module
 */
// The interpreter runs with no configuration file, so its import names the exact version.
import {
  bytesOutput,
  type Command,
  type ExecResult,
  type ResolvedCommandContext,
  unsafeBytesFromLatin1,
  // deno-lint-ignore no-import-prefix
} from "npm:just-bash@3.4.2";
import { inputLatin1 } from "./worker-shell-input-bytes.ts";

/** What a `head` with a negative count asks for, or undefined for any other `head`. */
interface AllBut {
  unit: "lines" | "bytes";
  count: number;
  headers: "auto" | "always" | "never";
  files: string[];
}

/** Reads `args` as GNU head does, when they hold a negative count; undefined otherwise. */
export function allButOf(args: readonly string[]): AllBut | undefined {
  let unit: AllBut["unit"] = "lines";
  let value: string | undefined;
  let headers: AllBut["headers"] = "auto";
  const files: string[] = [];
  let operands = false;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    if (operands || arg === "-" || !arg.startsWith("-")) {
      files.push(arg);
      continue;
    }
    if (arg === "--") {
      operands = true;
    } else if (arg === "-q" || arg === "--quiet" || arg === "--silent") {
      headers = "never";
    } else if (arg === "-v" || arg === "--verbose") {
      headers = "always";
    } else if (arg.startsWith("--lines=") || arg.startsWith("--bytes=")) {
      unit = arg.startsWith("--lines=") ? "lines" : "bytes";
      value = arg.slice(8);
    } else if (arg === "-n" || arg === "-c" || arg === "--lines" || arg === "--bytes") {
      unit = arg === "-n" || arg === "--lines" ? "lines" : "bytes";
      value = args[++index];
    } else if (/^-[nc]./.test(arg)) {
      unit = arg[1] === "n" ? "lines" : "bytes";
      value = arg.slice(2);
    } else {
      // An option this does not read (or `-5`): the command is just-bash's.
      return undefined;
    }
  }
  if (value === undefined || !/^-[0-9]+$/.test(value)) return undefined;
  return { unit, count: Number(value.slice(1)), headers, files };
}

/** `bytes` (latin1, one char a byte) without its last `count` lines (a last line may lack "\n"). */
function dropLines(bytes: string, count: number): string {
  const lines = bytes.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  return lines.slice(0, Math.max(0, lines.length - count)).join("");
}

/** Worker Shell's `head`: just-bash's, with negative counts (see the module's documentation). */
export const headCommand: Command = {
  name: "head",
  async execute(args: string[], ctx: ResolvedCommandContext): Promise<ExecResult> {
    const allBut = allButOf(args);
    if (allBut === undefined) {
      if (ctx.origCommand === undefined) throw new Error("head needs just-bash's own head");
      return await ctx.origCommand(args);
    }
    const files = allBut.files.length === 0 ? ["-"] : allBut.files;
    const headers = allBut.headers === "always" || (allBut.headers === "auto" && files.length > 1);
    let stdout = "";
    let stderr = "";
    let exitCode = 0;
    for (const [index, file] of files.entries()) {
      let bytes: string;
      try {
        bytes = await inputLatin1(ctx, file);
      } catch {
        stderr += `head: cannot open '${file}' for reading: No such file or directory\n`;
        exitCode = 1;
        continue;
      }
      if (headers) {
        stdout += `${index > 0 ? "\n" : ""}==> ${file === "-" ? "standard input" : file} <==\n`;
      }
      stdout += allBut.unit === "bytes"
        ? bytes.slice(0, Math.max(0, bytes.length - allBut.count))
        : dropLines(bytes, allBut.count);
    }
    return { ...bytesOutput(unsafeBytesFromLatin1(stdout)), stderr, exitCode };
  },
};
