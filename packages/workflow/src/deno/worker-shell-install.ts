/**
 * `install` in Worker Shell (WS-127), which just-bash lacks ("command not
 * found"): GNU install's copy with a mode, the way build scripts put files in
 * place.
 *
 * - `install SRC DEST`, `install SRC... DIR`, `install -t DIR SRC...` copy
 *   each file's content (a link is followed) to a destination that is
 *   replaced, not written through, and give it MODE (`-m`, 755 by default; a
 *   symbolic MODE starts from nothing, as GNU's does). `-D` makes DEST's
 *   missing parents (and `-t`'s folder); `-T` takes DEST as a file; `-C`
 *   leaves a destination with the same content and mode alone; `-v` says
 *   what it did.
 * - `install -d DIR...` makes each folder and its parents, and gives the
 *   last MODE, even when it existed.
 * - A Workspace keeps no owners or times: `-o`, `-g` and `-p` are accepted
 *   and change nothing (as `cp -p` keeps only the mode). `-s` (strip) and
 *   `-b` (backups) are refused.
 * - GNU's messages and status 1 when something could not be installed (the
 *   rest still are).
 *
 * @module
 */
// The interpreter runs with no configuration file, so its import names the exact version.
// deno-lint-ignore no-import-prefix
import type { Command, ExecResult, ResolvedCommandContext } from "npm:just-bash@3.4.2";
import { refusalWords } from "./worker-shell-errno-words.ts";
import { applyMode } from "./worker-shell-mode.ts";

const HELP = "Try 'install --help' for more information.\n";

interface Options {
  directory: boolean;
  parents: boolean;
  compare: boolean;
  verbose: boolean;
  noTarget: boolean;
  target?: string;
  mode: string;
  operands: string[];
}

/** A usage error: its message (without `install: `) and whether GNU adds its `--help` hint. */
class InstallUsageError extends Error {
  constructor(message: string, readonly hint = true) {
    super(message);
    this.name = "InstallUsageError";
  }
}

/** A file that could not be installed: GNU's message for it. */
class NotInstalled extends Error {
  constructor(message: string) {
    super(message);
    this.name = "NotInstalled";
  }
}

const FLAGS: Record<string, keyof Options | "ignored" | "refused"> = {
  d: "directory",
  D: "parents",
  C: "compare",
  v: "verbose",
  T: "noTarget",
  c: "ignored",
  p: "ignored",
  s: "refused",
  b: "refused",
};
const LONG_FLAGS: Record<string, keyof Options | "ignored" | "refused"> = {
  directory: "directory",
  compare: "compare",
  verbose: "verbose",
  "no-target-directory": "noTarget",
  "preserve-timestamps": "ignored",
  strip: "refused",
  backup: "refused",
};
/** Options that take a value, by letter and by long name. */
const VALUED: Record<string, "mode" | "target" | "owner" | "suffix"> = {
  m: "mode",
  t: "target",
  o: "owner",
  g: "owner",
  S: "suffix",
  mode: "mode",
  "target-directory": "target",
  owner: "owner",
  group: "owner",
  suffix: "suffix",
};

function parseOptions(args: readonly string[]): Options {
  const options: Options = {
    directory: false,
    parents: false,
    compare: false,
    verbose: false,
    noTarget: false,
    mode: "755",
    operands: [],
  };
  const set = (name: string, spelled: string, value?: string) => {
    const valued = VALUED[name];
    if (valued === "mode") options.mode = value!;
    else if (valued === "target") options.target = value!;
    else if (valued === "suffix") {
      throw new InstallUsageError(`${spelled}: backups are not supported in Worker Shell`, false);
    } else if (valued === undefined) {
      const flag = name.length === 1 ? FLAGS[name] : LONG_FLAGS[name];
      if (flag === "refused") {
        const what = name === "s" || name === "strip" ? "stripping is" : "backups are";
        throw new InstallUsageError(`${spelled}: ${what} not supported in Worker Shell`, false);
      }
      if (flag !== "ignored") (options[flag as "directory"] as boolean) = true;
    }
  };
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    if (arg === "--") {
      options.operands.push(...args.slice(index + 1));
      break;
    }
    if (arg === "-" || !arg.startsWith("-")) {
      options.operands.push(arg);
    } else if (arg.startsWith("--")) {
      const [name, value] = arg.slice(2).split(/=(.*)/s, 2);
      if (name in VALUED) {
        if (value === undefined && index + 1 >= args.length) {
          throw new InstallUsageError(`option '--${name}' requires an argument`);
        }
        set(name, `--${name}`, value ?? args[++index]);
      } else if (name in LONG_FLAGS && value === undefined) {
        set(name, arg);
      } else {
        throw new InstallUsageError(`unrecognized option '${arg}'`);
      }
    } else {
      for (let at = 1; at < arg.length; at++) {
        const letter = arg[at];
        if (letter in VALUED) {
          const rest = arg.slice(at + 1);
          if (rest === "" && index + 1 >= args.length) {
            throw new InstallUsageError(`option requires an argument -- '${letter}'`);
          }
          set(letter, `-${letter}`, rest === "" ? args[++index] : rest);
          break;
        }
        if (!(letter in FLAGS)) throw new InstallUsageError(`invalid option -- '${letter}'`);
        set(letter, `-${letter}`);
      }
    }
  }
  return options;
}

/** `dir` and `name` joined with one slash. */
function join(dir: string, name: string): string {
  return dir.endsWith("/") ? `${dir}${name}` : `${dir}/${name}`;
}

function baseName(path: string): string {
  const trimmed = path.replace(/\/+$/, "");
  return trimmed.slice(trimmed.lastIndexOf("/") + 1) || trimmed;
}

class Installer {
  stdout = "";
  stderr = "";
  constructor(private readonly ctx: ResolvedCommandContext, private readonly options: Options) {}

  at(path: string): string {
    return this.ctx.fs.resolvePath(this.ctx.cwd, path);
  }

  async kind(path: string, follow = true): Promise<"file" | "dir" | "link" | undefined> {
    try {
      const stat = follow
        ? await this.ctx.fs.stat(this.at(path))
        : await this.ctx.fs.lstat(this.at(path));
      return stat.isDirectory ? "dir" : stat.isSymbolicLink ? "link" : "file";
    } catch {
      return undefined;
    }
  }

  /** `mkdir -p path`, saying each folder it makes with `-v`. */
  async makeFolders(path: string): Promise<void> {
    const parts = path.split("/");
    let prefix = path.startsWith("/") ? "/" : "";
    for (const part of parts) {
      if (part === "") continue;
      prefix = prefix === "" ? part : join(prefix, part);
      const kind = await this.kind(prefix);
      if (kind === "dir") continue;
      if (kind !== undefined) {
        throw new NotInstalled(`cannot create directory '${prefix}': File exists`);
      }
      try {
        await this.ctx.fs.mkdir(this.at(prefix));
      } catch (error) {
        throw new NotInstalled(`cannot create directory '${prefix}': ${refusalWords(error)}`);
      }
      if (this.options.verbose) this.stdout += `install: creating directory '${prefix}'\n`;
    }
  }

  async folder(path: string, mode: number): Promise<void> {
    await this.makeFolders(path);
    await this.ctx.fs.chmod(this.at(path), mode);
  }

  async file(source: string, dest: string, mode: number): Promise<void> {
    const kind = await this.kind(source);
    if (kind === undefined) {
      throw new NotInstalled(`cannot stat '${source}': No such file or directory`);
    }
    if (kind === "dir") throw new NotInstalled(`omitting directory '${source}'`);
    const destKind = await this.kind(dest);
    if (destKind === "dir") {
      throw new NotInstalled(`cannot overwrite directory '${dest}' with non-directory`);
    }
    const fs = this.ctx.fs;
    const [from, to] = [this.at(source), this.at(dest)];
    if (destKind !== undefined && (await fs.realpath(from)) === (await fs.realpath(to))) {
      throw new NotInstalled(`'${source}' and '${dest}' are the same file`);
    }
    const content = await fs.readFileBuffer(from);
    if (this.options.compare && destKind === "file" && (await this.kind(dest, false)) === "file") {
      const [existing, stat] = [await fs.readFileBuffer(to), await fs.stat(to)];
      const same = existing.length === content.length &&
        existing.every((byte, i) => byte === content[i]);
      if (same && (stat.mode & 0o7777) === mode) return;
    }
    if ((await this.kind(dest, false)) !== undefined) {
      await fs.rm(to);
      if (this.options.verbose) this.stdout += `removed '${dest}'\n`;
    }
    try {
      await fs.writeFile(to, content);
    } catch (error) {
      throw new NotInstalled(`cannot create regular file '${dest}': ${refusalWords(error)}`);
    }
    await fs.chmod(to, mode);
    if (this.options.verbose) this.stdout += `'${source}' -> '${dest}'\n`;
  }

  /** Runs `work`; a file it could not install is said on stderr, and the rest go on. */
  async each(work: () => Promise<void>): Promise<boolean> {
    try {
      await work();
      return true;
    } catch (error) {
      if (!(error instanceof NotInstalled)) throw error;
      this.stderr += `install: ${error.message}\n`;
      return false;
    }
  }
}

async function install(ctx: ResolvedCommandContext, options: Options): Promise<ExecResult> {
  const mode = applyMode(options.mode, 0, options.directory, 0);
  if (mode === undefined) throw new InstallUsageError(`invalid mode ‘${options.mode}’`, false);
  const installer = new Installer(ctx, options);
  const { operands } = options;
  let ok = true;
  if (options.directory) {
    if (operands.length === 0) throw new InstallUsageError("missing file operand");
    for (const dir of operands) {
      ok = (await installer.each(() => installer.folder(dir, mode))) && ok;
    }
  } else if (options.target !== undefined) {
    if (operands.length === 0) throw new InstallUsageError("missing file operand");
    const target = options.target;
    if (options.parents) ok = await installer.each(() => installer.makeFolders(target));
    if (ok && (await installer.kind(target)) !== "dir") {
      installer.stderr += `install: failed to access '${target}': ${
        (await installer.kind(target)) === undefined
          ? "No such file or directory"
          : "Not a directory"
      }\n`;
      ok = false;
    }
    for (const source of ok ? operands : []) {
      ok = (await installer.each(() =>
        installer.file(source, join(target, baseName(source)), mode)
      )) &&
        ok;
    }
  } else {
    if (operands.length === 0) throw new InstallUsageError("missing file operand");
    if (operands.length === 1) {
      throw new InstallUsageError(`missing destination file operand after '${operands[0]}'`);
    }
    const dest = operands[operands.length - 1];
    const sources = operands.slice(0, -1);
    const intoFolder = !options.noTarget && (await installer.kind(dest)) === "dir";
    if (sources.length > 1 && !intoFolder) {
      if (options.noTarget) throw new InstallUsageError(`extra operand '${dest}'`);
      const why = (await installer.kind(dest)) === undefined
        ? "No such file or directory"
        : "Not a directory";
      return { stdout: "", stderr: `install: target '${dest}': ${why}\n`, exitCode: 1 };
    }
    for (const source of sources) {
      const to = intoFolder ? join(dest, baseName(source)) : dest;
      ok = (await installer.each(async () => {
        if (options.parents && !intoFolder) {
          const parent = to.slice(0, to.lastIndexOf("/"));
          if (parent !== "") await installer.makeFolders(parent);
        }
        await installer.file(source, to, mode);
      })) && ok;
    }
  }
  return { stdout: installer.stdout, stderr: installer.stderr, exitCode: ok ? 0 : 1 };
}

/** Worker Shell's `install` (see the module's documentation). */
export const installCommand: Command = {
  name: "install",
  async execute(args: string[], ctx: ResolvedCommandContext): Promise<ExecResult> {
    try {
      return await install(ctx, parseOptions(args));
    } catch (error) {
      if (!(error instanceof InstallUsageError)) throw error;
      return {
        stdout: "",
        stderr: `install: ${error.message}\n${error.hint ? HELP : ""}`,
        exitCode: 1,
      };
    }
  },
};
