/**
 * `mktemp` in Worker Shell (WS-124): just-bash has none ("command not
 * found", status 127), and `tmp=$(mktemp -d)` is how a careful script makes
 * its scratch folder. GNU mktemp's rules:
 *
 * - The template's last run of at least three `X`s is replaced by random
 *   letters and digits; what follows it is kept as a suffix (or `--suffix`
 *   gives one, and the template must then end in `X`). Without a template,
 *   `tmp.XXXXXXXXXX` in the temporary folder.
 * - The temporary folder is `-p DIR`/`--tmpdir=DIR`, else `$TMPDIR`, else
 *   `/tmp` (`-t` prefers `$TMPDIR` to `-p`); a template is taken relative to
 *   it with `-p`, `--tmpdir` or `-t`, or when none is given, and relative to
 *   the working folder otherwise.
 * - A file is made empty with mode 600, a folder (`-d`) with mode 700, under
 *   a name nothing had; `-u` makes nothing and prints a name; `-q` keeps a
 *   failure to make it quiet.
 *
 * A Workspace begins empty: when the temporary folder is `/tmp` and the
 * Workspace has none, it is made (mode 1777, as on any system) before the
 * name is.
 *
 * @module
 */
// The interpreter runs with no configuration file, so its import names the exact version.
// deno-lint-ignore no-import-prefix
import type { Command, ExecResult, ResolvedCommandContext } from "npm:just-bash@3.4.2";
import { refusalWords } from "./worker-shell-errno-words.ts";

const HELP = "Try 'mktemp --help' for more information.\n";
const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const DEFAULT_TEMPLATE = "tmp.XXXXXXXXXX";
const SYSTEM_TMP = "/tmp";
/** Names tried before a template is given up, as GNU's bound. */
const ATTEMPTS = 62 * 62 * 62;

interface Options {
  directory: boolean;
  dryRun: boolean;
  quiet: boolean;
  suffix?: string;
  /** `-p DIR` or `--tmpdir[=DIR]` was given ("" when without DIR). */
  tmpdir?: string;
  deprecatedT: boolean;
  templates: string[];
}

/** A usage error: its message (without `mktemp: `) and whether GNU adds its `--help` hint. */
class MktempUsageError extends Error {
  constructor(message: string, readonly hint: boolean) {
    super(message);
    this.name = "MktempUsageError";
  }
}

function parseOptions(args: readonly string[]): Options {
  const options: Options = {
    directory: false,
    dryRun: false,
    quiet: false,
    deprecatedT: false,
    templates: [],
  };
  const long: Record<string, keyof Options> = {
    directory: "directory",
    "dry-run": "dryRun",
    quiet: "quiet",
  };
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    if (arg === "--") {
      options.templates.push(...args.slice(index + 1));
      break;
    }
    if (arg.startsWith("--")) {
      const [name, value] = arg.slice(2).split(/=(.*)/s, 2);
      if (name === "suffix") {
        if (value === undefined) {
          if (index + 1 >= args.length) {
            throw new MktempUsageError("option '--suffix' requires an argument", true);
          }
          options.suffix = args[++index];
        } else {
          options.suffix = value;
        }
      } else if (name === "tmpdir") {
        options.tmpdir = value ?? "";
      } else if (name in long && value === undefined) {
        (options[long[name]] as boolean) = true;
      } else {
        throw new MktempUsageError(`unrecognized option '${arg}'`, true);
      }
      continue;
    }
    if (!arg.startsWith("-") || arg === "-") {
      options.templates.push(arg);
      continue;
    }
    for (let at = 1; at < arg.length; at++) {
      const letter = arg[at];
      if (letter === "d") options.directory = true;
      else if (letter === "u") options.dryRun = true;
      else if (letter === "q") options.quiet = true;
      else if (letter === "t") options.deprecatedT = true;
      else if (letter === "p") {
        const rest = arg.slice(at + 1);
        if (rest === "" && index + 1 >= args.length) {
          throw new MktempUsageError("option requires an argument -- 'p'", true);
        }
        options.tmpdir = rest === "" ? args[++index] : rest;
        break;
      } else {
        throw new MktempUsageError(`invalid option -- '${letter}'`, true);
      }
    }
  }
  if (options.templates.length > 1) throw new MktempUsageError("too many templates", true);
  return options;
}

/** `dir` and `name` joined with one slash. */
function join(dir: string, name: string): string {
  return dir.endsWith("/") ? `${dir}${name}` : `${dir}/${name}`;
}

interface Name {
  /** The path to make, with its X's still in place. */
  template: string;
  /** Where the X's are: [start, end) in `template`. */
  start: number;
  end: number;
  /** The temporary folder, when the template is taken relative to it. */
  dir?: string;
}

/** The template as GNU mktemp settles it, or a usage error. */
function settle(options: Options, ctx: ResolvedCommandContext): Name {
  const given = options.templates[0];
  let template = given ?? DEFAULT_TEMPLATE;
  let suffix = options.suffix;
  if (suffix !== undefined) {
    if (!template.endsWith("X")) {
      throw new MktempUsageError(`with --suffix, template ‘${template}’ must end in X`, false);
    }
  } else {
    const last = template.lastIndexOf("X");
    suffix = last < 0 ? "" : template.slice(last + 1);
    template = last < 0 ? template : template.slice(0, last + 1);
  }
  if (suffix.includes("/")) {
    throw new MktempUsageError(`invalid suffix ‘${suffix}’, contains directory separator`, false);
  }
  const xs = template.length - template.replace(/X*$/, "").length;
  if (xs < 3) throw new MktempUsageError(`too few X's in template ‘${template}${suffix}’`, false);
  let dir: string | undefined;
  if (given === undefined || options.tmpdir !== undefined || options.deprecatedT) {
    const environment = ctx.exportedEnv?.TMPDIR || undefined;
    if (options.deprecatedT) {
      dir = environment || options.tmpdir || SYSTEM_TMP;
      if (template.includes("/")) {
        throw new MktempUsageError(
          `invalid template, ‘${template}${suffix}’, contains directory separator`,
          false,
        );
      }
    } else {
      dir = options.tmpdir || environment || SYSTEM_TMP;
      if (template.startsWith("/")) {
        throw new MktempUsageError(
          `invalid template, ‘${template}${suffix}’; with --tmpdir, it may not be absolute`,
          false,
        );
      }
    }
    template = join(dir, template);
  }
  return { template: template + suffix, start: template.length - xs, end: template.length, dir };
}

function randomLetters(count: number): string {
  const bytes = crypto.getRandomValues(new Uint8Array(count));
  let text = "";
  // 248 = 4 × 62: a byte under it picks a letter without bias; the rest are drawn again.
  for (const byte of bytes) text += byte < 248 ? LETTERS[byte % 62] : randomLetters(1);
  return text;
}

async function exists(ctx: ResolvedCommandContext, path: string): Promise<boolean> {
  try {
    await ctx.fs.lstat(path);
    return true;
  } catch {
    return false;
  }
}

/** Makes (or, with `-u`, only names) a file or folder under `name`; returns its path. */
async function make(ctx: ResolvedCommandContext, name: Name, options: Options): Promise<string> {
  const at = (path: string) => ctx.fs.resolvePath(ctx.cwd, path);
  if (name.dir === SYSTEM_TMP && !options.dryRun && !(await exists(ctx, SYSTEM_TMP))) {
    await ctx.fs.mkdir(SYSTEM_TMP);
    await ctx.fs.chmod(SYSTEM_TMP, 0o1777);
  }
  if (!options.dryRun) {
    const parent = at(name.template.slice(0, name.template.lastIndexOf("/") + 1) || ".");
    if (!(await ctx.fs.stat(parent)).isDirectory) throw new Error("ENOTDIR");
  }
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const path = name.template.slice(0, name.start) + randomLetters(name.end - name.start) +
      name.template.slice(name.end);
    if (await exists(ctx, at(path))) continue;
    if (options.dryRun) return path;
    if (options.directory) {
      await ctx.fs.mkdir(at(path));
      await ctx.fs.chmod(at(path), 0o700);
    } else {
      await ctx.fs.writeFile(at(path), "");
      await ctx.fs.chmod(at(path), 0o600);
    }
    return path;
  }
  throw new Error("EEXIST");
}

/** Worker Shell's `mktemp` (see the module's documentation). */
export const mktempCommand: Command = {
  name: "mktemp",
  async execute(args: string[], ctx: ResolvedCommandContext): Promise<ExecResult> {
    let options: Options;
    let name: Name;
    try {
      options = parseOptions(args);
      name = settle(options, ctx);
    } catch (error) {
      if (!(error instanceof MktempUsageError)) throw error;
      return {
        stdout: "",
        stderr: `mktemp: ${error.message}\n${error.hint ? HELP : ""}`,
        exitCode: 1,
      };
    }
    try {
      return { stdout: `${await make(ctx, name, options)}\n`, stderr: "", exitCode: 0 };
    } catch (error) {
      if (options.quiet) return { stdout: "", stderr: "", exitCode: 1 };
      const kind = options.directory ? "directory" : "file";
      return {
        stdout: "",
        stderr: `mktemp: failed to create ${kind} via template ‘${name.template}’: ${
          refusalWords(error)
        }\n`,
        exitCode: 1,
      };
    }
  },
};
