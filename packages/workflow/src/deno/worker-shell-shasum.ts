/**
 * `sha224sum`, `sha384sum` and `sha512sum` in Worker Shell (WS-145), which
 * just-bash lacks (it has `md5sum`, `sha1sum` and `sha256sum`), as GNU
 * coreutils writes and checks them: `HASH  FILE` a file (`-` or none:
 * standard input), and with `-c` (`--check`) each `HASH  FILE` or
 * `HASH *FILE` line of the files given checked (`FILE: OK`, `FILE: FAILED`,
 * `FILE: FAILED open or read`), GNU's warnings at the end, status 1 when any
 * failed; `--quiet` leaves out the OK lines, `--status` prints nothing. `-b`
 * marks each name with `*` (binary mode, which reads the same bytes), `-t`
 * does not. Another option is refused in GNU's words (status 1).
 *
 * @module
 */
import { createHash } from "node:crypto";
// The interpreter runs with no configuration file, so its import names the exact version.
// deno-lint-ignore no-import-prefix
import type { Command, ExecResult, ResolvedCommandContext } from "npm:just-bash@3.4.2";
import { refusalWords } from "./worker-shell-errno-words.ts";
import { inputBytes } from "./worker-shell-input-bytes.ts";

/** How `-c` reports: every line, failures only (`--quiet`), or nothing (`--status`). */
type Report = "all" | "failures" | "none";

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

function shaSum(name: string, algorithm: string, hexLength: number): Command {
  const digest = (bytes: Uint8Array) => createHash(algorithm).update(bytes).digest("hex");
  const check = async (ctx: ResolvedCommandContext, files: string[], report: Report) => {
    let stdout = "";
    let stderr = "";
    let mismatched = 0;
    let unreadable = 0;
    const line = new RegExp(`^([0-9a-fA-F]{${hexLength}}) [ *](.+)$`);
    for (const list of files) {
      let text: string;
      try {
        text = new TextDecoder().decode(await inputBytes(ctx, list));
      } catch (error) {
        stderr += `${name}: ${list}: ${refusalWords(error)}\n`;
        continue;
      }
      let formatted = 0;
      for (const row of text.split("\n")) {
        const match = line.exec(row);
        if (!match) continue;
        formatted++;
        const [, expected, file] = match;
        let bytes: Uint8Array;
        try {
          bytes = await inputBytes(ctx, file);
        } catch (error) {
          unreadable++;
          stderr += `${name}: ${file}: ${refusalWords(error)}\n`;
          if (report !== "none") stdout += `${file}: FAILED open or read\n`;
          continue;
        }
        if (digest(bytes) === expected.toLowerCase()) {
          if (report === "all") stdout += `${file}: OK\n`;
        } else {
          mismatched++;
          if (report !== "none") stdout += `${file}: FAILED\n`;
        }
      }
      if (formatted === 0) {
        stderr += `${name}: ${list}: no properly formatted checksum lines found\n`;
      }
    }
    if (report !== "none") {
      if (unreadable > 0) {
        stderr += `${name}: WARNING: ${
          plural(unreadable, "listed file", "listed files")
        } could not be read\n`;
      }
      if (mismatched > 0) {
        stderr += `${name}: WARNING: ${
          plural(mismatched, "computed checksum", "computed checksums")
        } did NOT match\n`;
      }
    }
    const failed = mismatched > 0 || unreadable > 0 || stderr.includes("no properly formatted");
    return { stdout, stderr, exitCode: failed ? 1 : 0 };
  };
  return {
    name,
    async execute(args: string[], ctx: ResolvedCommandContext): Promise<ExecResult> {
      let checking = false;
      let report: Report = "all";
      // GNU marks a file read in binary mode with `*` before its name.
      let marker = " ";
      const files: string[] = [];
      for (let index = 0; index < args.length; index++) {
        const arg = args[index];
        if (arg === "--") {
          files.push(...args.slice(index + 1));
          break;
        }
        if (arg === "-c" || arg === "--check") checking = true;
        else if (arg === "--quiet") report = report === "none" ? "none" : "failures";
        else if (arg === "--status") report = "none";
        else if (arg === "-b" || arg === "--binary") marker = "*";
        else if (arg === "-t" || arg === "--text") marker = " ";
        else if (arg.startsWith("-") && arg !== "-") {
          const what = arg.startsWith("--")
            ? `unrecognized option '${arg}'`
            : `invalid option -- '${arg[1]}'`;
          return {
            stdout: "",
            stderr: `${name}: ${what}\nTry '${name} --help' for more information.\n`,
            exitCode: 1,
          };
        } else files.push(arg);
      }
      if (files.length === 0) files.push("-");
      if (checking) return await check(ctx, files, report);
      let stdout = "";
      let stderr = "";
      for (const file of files) {
        try {
          stdout += `${digest(await inputBytes(ctx, file))} ${marker}${file}\n`;
        } catch (error) {
          stderr += `${name}: ${file}: ${refusalWords(error)}\n`;
        }
      }
      return { stdout, stderr, exitCode: stderr === "" ? 0 : 1 };
    },
  };
}

/** Worker Shell's `sha224sum`. */
export const sha224sumCommand: Command = shaSum("sha224sum", "sha224", 56);
/** Worker Shell's `sha384sum`. */
export const sha384sumCommand: Command = shaSum("sha384sum", "sha384", 96);
/** Worker Shell's `sha512sum`. */
export const sha512sumCommand: Command = shaSum("sha512sum", "sha512", 128);
