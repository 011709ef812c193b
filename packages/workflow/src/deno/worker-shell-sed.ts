/**
 * `sed -i SUFFIX` in Worker Shell (WS-122): just-bash's `sed` edits a file in
 * place with `-i.bak` but writes no backup, and refuses `--in-place=.bak`; a
 * script that then removes or restores `file.bak` (`sed -i.bak` is the form
 * GNU and BSD sed share) fails. This command reads each file `sed` will edit,
 * runs just-bash's `sed` with the suffix dropped (`-i`), and writes each
 * original under its backup name (when `sed` failed, only those of the files
 * it changed), as GNU sed does: the file's
 * name with SUFFIX appended or, when SUFFIX holds `*`, SUFFIX with each `*`
 * replaced by the file's name, beside the file (a `/` in it names a folder
 * there, which must exist). Its script is first spelled so just-bash reads
 * it as GNU sed does (WS-138, `worker-shell-sed-script.ts`: the texts of `a`,
 * `i` and `c`, a replacement's `\\`), and a `$a\` with nothing after it ends
 * the output (or each file edited in place) with the newline GNU's adds when
 * the input lacked one. Any other `sed` is just-bash's, unchanged.
 *
 * @module
 */
// The interpreter runs with no configuration file, so its import names the exact version.
// deno-lint-ignore no-import-prefix
import type { Command, ExecResult, ResolvedCommandContext } from "npm:just-bash@3.4.2";
import { sedArgsForJustBash } from "./worker-shell-sed-script.ts";
import {
  convertCase,
  convertCaseInBytes,
  convertCaseInByteString,
} from "./worker-shell-sed-case.ts";

/** Short options of GNU sed that take a value (joined or in the next argument). */
const VALUED = new Set(["e", "f", "l"]);
const LONG_VALUED = new Set(["--expression", "--file", "--line-length"]);

/** What an in-place `sed` asks for, or undefined for any other `sed`. */
interface InPlace {
  /** The backup suffix, or "" for none. */
  suffix: string;
  /** The arguments for just-bash's `sed`: the suffix dropped. */
  args: string[];
  files: string[];
}

/** Reads `args` as GNU sed does, when they ask for an in-place edit. */
export function inPlaceOf(args: readonly string[]): InPlace | undefined {
  let inPlace = false;
  let suffix = "";
  let script = false;
  const rewritten: string[] = [];
  const operands: string[] = [];
  let ended = false;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    if (ended || arg === "-" || !arg.startsWith("-")) {
      operands.push(arg);
      rewritten.push(arg);
      continue;
    }
    if (arg === "--") {
      ended = true;
      rewritten.push(arg);
      continue;
    }
    if (arg.startsWith("--")) {
      const [name] = arg.split("=", 1);
      if (name === "--in-place") {
        inPlace = true;
        if (arg.length > name.length) suffix = arg.slice(name.length + 1);
        rewritten.push("-i");
        continue;
      }
      if (name === "--expression" || name === "--file") script = true;
      rewritten.push(arg);
      if (LONG_VALUED.has(arg)) rewritten.push(args[++index] ?? "");
      continue;
    }
    // A cluster: flags, then at most one option that takes the rest (or the next argument).
    let kept = "-";
    for (let at = 1; at < arg.length; at++) {
      const flag = arg[at];
      if (flag === "i") {
        inPlace = true;
        const rest = arg.slice(at + 1);
        if (rest !== "") suffix = rest;
        kept += "i";
        break;
      }
      kept += flag;
      if (VALUED.has(flag)) {
        if (flag === "e" || flag === "f") script = true;
        kept += arg.slice(at + 1);
        if (at + 1 === arg.length) {
          rewritten.push(kept);
          kept = "";
          rewritten.push(args[++index] ?? "");
        }
        break;
      }
    }
    if (kept !== "") rewritten.push(kept);
  }
  if (!inPlace) return undefined;
  // Without -e or -f the first operand is the script.
  const files = (script ? operands : operands.slice(1)).filter((file) => file !== "-");
  return { suffix, args: rewritten, files };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, index) => byte === b[index]);
}

function backupName(file: string, suffix: string): string {
  if (!suffix.includes("*")) return file + suffix;
  const slash = file.lastIndexOf("/");
  const dir = slash < 0 ? "" : file.slice(0, slash + 1);
  const name = file.slice(slash + 1);
  return dir + suffix.replaceAll("*", name);
}

/** Worker Shell's `sed`: just-bash's, with backups for `-i SUFFIX` and GNU's script (see above). */
export const sedCommand: Command = {
  name: "sed",
  async execute(args: string[], ctx: ResolvedCommandContext): Promise<ExecResult> {
    const spelled = sedArgsForJustBash(args);
    const inPlace = inPlaceOf(spelled.args);
    const ran = await inPlaceSed(spelled.args, inPlace, ctx);
    const result = spelled.convertsCase ? await caseConverted(ran, inPlace, ctx) : ran;
    if (!spelled.endsWithNewline) return result;
    // `$a\`: GNU ends an input that lacked it with a newline.
    if (inPlace === undefined) {
      return result.stdout === "" || result.stdout.endsWith("\n")
        ? result
        : { ...result, stdout: `${result.stdout}\n` };
    }
    for (const file of inPlace.files) {
      const path = ctx.fs.resolvePath(ctx.cwd, file);
      const content = await ctx.fs.readFileBuffer(path).catch(() => undefined);
      if (content === undefined || content.length === 0 || content[content.length - 1] === 10) {
        continue;
      }
      const ended = new Uint8Array(content.length + 1);
      ended.set(content);
      ended[content.length] = 10;
      await ctx.fs.writeFile(path, ended);
    }
    return result;
  },
};

/** `result` and each file edited in place with their case conversions made (WS-159). */
async function caseConverted(
  result: ExecResult,
  inPlace: InPlace | undefined,
  ctx: ResolvedCommandContext,
): Promise<ExecResult> {
  for (const file of inPlace?.files ?? []) {
    const path = ctx.fs.resolvePath(ctx.cwd, file);
    const content = await ctx.fs.readFileBuffer(path).catch(() => undefined);
    if (content === undefined) continue;
    const converted = convertCaseInBytes(content);
    if (converted !== content) await ctx.fs.writeFile(path, converted);
  }
  return { ...result, stdout: convertCaseInByteString(convertCase(result.stdout)) };
}

async function inPlaceSed(
  args: string[],
  inPlace: InPlace | undefined,
  ctx: ResolvedCommandContext,
): Promise<ExecResult> {
  if (ctx.origCommand === undefined) throw new Error("sed needs just-bash's own sed");
  if (inPlace === undefined || inPlace.suffix === "") return await ctx.origCommand(args);
  const originals = new Map<string, Uint8Array>();
  for (const file of inPlace.files) {
    const path = ctx.fs.resolvePath(ctx.cwd, file);
    // A file that cannot be read is sed's to report; it gets no backup.
    const content = await ctx.fs.readFileBuffer(path).catch(() => undefined);
    if (content !== undefined) originals.set(path, content);
  }
  const result = await ctx.origCommand(inPlace.args);
  for (const file of inPlace.files) {
    const path = ctx.fs.resolvePath(ctx.cwd, file);
    const content = originals.get(path);
    if (content === undefined) continue;
    // sed failed on another file (`sed -i.bak s/a/b/ f missing`): f was still edited, and is
    // backed up; one it left as it was is not (it may not have got to it).
    if (result.exitCode !== 0 && sameBytes(await ctx.fs.readFileBuffer(path), content)) continue;
    const backup = ctx.fs.resolvePath(ctx.cwd, backupName(file, inPlace.suffix));
    try {
      await ctx.fs.writeFile(backup, content);
    } catch {
      return {
        ...result,
        stderr: `${result.stderr}sed: cannot rename ${file}: No such file or directory\n`,
        exitCode: 4,
      };
    }
  }
  return result;
}
