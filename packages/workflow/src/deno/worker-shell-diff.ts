/**
 * `diff` in Worker Shell (WS-139) prints GNU diff's formats. just-bash's
 * `diff` printed a unified diff whatever it was asked, headed by a line of
 * `=` and with no time on its `---`/`+++` lines, so `diff a b` did not print
 * GNU's default ("normal") format (`2c2`, `< b`, `---`, `> c`) and `diff -u
 * a b | tail -n +3` did not start at the first hunk. This command runs
 * just-bash's `diff -u`, whose lines and hunks are the comparison, and
 * writes them as GNU does: the normal format by default (its `NcM`, `NdM`
 * and `NaM` commands, `<` and `>` lines, `\ No newline at end of file`), and
 * for `-u` (`--unified`, `-U 3`, `--unified=3`) GNU's header (each file's
 * name, a tab and its modification time, UTC) and hunk ranges (a range of one
 * line is its number alone). Status and refusals are just-bash's (0 the same,
 * 1 different, 2 trouble). Any other `diff` (`-q`, `-s`, `-i`, another
 * context, an option just-bash's `diff` lacks) is just-bash's, unchanged.
 *
 * @module
 */
// The interpreter runs with no configuration file, so its import names the exact version.
// deno-lint-ignore no-import-prefix
import type { Command, ExecResult, ResolvedCommandContext } from "npm:just-bash@3.4.2";

/** The format `args` ask of `diff` and its two files, or undefined for any other `diff`. */
export function readDiffArgs(
  args: readonly string[],
): { unified: boolean; files: [string, string] } | undefined {
  let unified = false;
  const files: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    if (arg === "--") {
      files.push(...args.slice(index + 1));
      break;
    }
    if (arg === "-" || !arg.startsWith("-")) files.push(arg);
    else if (arg === "-u" || arg === "--unified" || arg === "-U3" || arg === "--unified=3") {
      unified = true;
    } else if (arg === "-U" && args[index + 1] === "3") {
      unified = true;
      index++;
    } else return undefined;
  }
  return files.length === 2 ? { unified, files: [files[0], files[1]] } : undefined;
}

const NO_NEWLINE = "\\ No newline at end of file";

/** A line of one side of a change, with the marker GNU prints after it, if any. */
interface Line {
  text: string;
  noNewline: boolean;
}

function range(first: number, last: number): string {
  return first === last ? String(first) : `${first},${last}`;
}

/** just-bash's unified hunks written in GNU's normal format. */
export function normalFormat(patch: string): string {
  let out = "";
  let old = 0;
  let added = 0;
  let removed: Line[] = [];
  let inserted: Line[] = [];
  let last: Line | undefined;
  const flush = () => {
    if (removed.length === 0 && inserted.length === 0) return;
    const oldFirst = old - removed.length + 1;
    const newFirst = added - inserted.length + 1;
    if (removed.length > 0 && inserted.length > 0) {
      out += `${range(oldFirst, old)}c${range(newFirst, added)}\n`;
    } else if (removed.length > 0) out += `${range(oldFirst, old)}d${added}\n`;
    else out += `${old}a${range(newFirst, added)}\n`;
    const side = (lines: Line[], mark: string) => {
      for (const line of lines) {
        out += `${mark} ${line.text}\n`;
        if (line.noNewline) out += `${NO_NEWLINE}\n`;
      }
    };
    side(removed, "<");
    if (removed.length > 0 && inserted.length > 0) out += "---\n";
    side(inserted, ">");
    removed = [];
    inserted = [];
  };
  const lines = patch.split("\n");
  // What comes before the first hunk is just-bash's header.
  for (const line of lines.slice(Math.max(0, lines.findIndex((line) => line.startsWith("@@"))))) {
    const hunk = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (hunk) {
      flush();
      // A range of no lines starts at the line before it.
      old = Number(hunk[2] ?? "1") === 0 ? Number(hunk[1]) : Number(hunk[1]) - 1;
      added = Number(hunk[4] ?? "1") === 0 ? Number(hunk[3]) : Number(hunk[3]) - 1;
      last = undefined;
      continue;
    }
    if (line.startsWith("\\")) {
      if (last) last.noNewline = true;
      continue;
    }
    const mark = line[0];
    const text = line.slice(1);
    if (mark === " ") {
      flush();
      old++;
      added++;
      last = undefined;
    } else if (mark === "-") {
      old++;
      removed.push(last = { text, noNewline: false });
    } else if (mark === "+") {
      added++;
      inserted.push(last = { text, noNewline: false });
    }
  }
  flush();
  return out;
}

/** A modification time as GNU diff's header writes it (`2026-12-03 16:58:01.123000000 +0000`). */
export function headerTime(time: Date): string {
  const iso = time.toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}.${iso.slice(20, 23)}000000 +0000`;
}

/** just-bash's unified diff with GNU's header and hunk ranges. */
function unifiedFormat(patch: string, header: [string, string]): string {
  const lines = patch.split("\n");
  const first = lines.findIndex((line) => line.startsWith("@@"));
  const hunks = lines.slice(first).map((line) =>
    line.replace(
      /^@@ -(\d+),(\d+) \+(\d+),(\d+) @@/,
      (_, a, b, c, d) => `@@ -${b === "1" ? a : `${a},${b}`} +${d === "1" ? c : `${c},${d}`} @@`,
    )
  );
  return `--- ${header[0]}\n+++ ${header[1]}\n${hunks.join("\n")}`;
}

/** Worker Shell's `diff`: just-bash's comparison in GNU's formats (see above). */
export const diffCommand: Command = {
  name: "diff",
  async execute(args: string[], ctx: ResolvedCommandContext): Promise<ExecResult> {
    const own = ctx.origCommand;
    if (own === undefined) throw new Error("diff needs just-bash's own diff");
    const read = readDiffArgs(args);
    if (read === undefined) return await own(args);
    const result = await own(["-u", "--", ...read.files]);
    if (result.exitCode !== 1) return result;
    if (!read.unified) return { ...result, stdout: normalFormat(result.stdout) };
    const header = await Promise.all(read.files.map(async (file) => {
      const time = file === "-"
        ? new Date()
        : (await ctx.fs.stat(ctx.fs.resolvePath(ctx.cwd, file))).mtime ?? new Date(0);
      return `${file}\t${headerTime(time)}`;
    }));
    return { ...result, stdout: unifiedFormat(result.stdout, header as [string, string]) };
  },
};
