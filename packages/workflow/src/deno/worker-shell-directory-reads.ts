/**
 * A folder given to a command that reads files is said to be one (WS-158).
 * just-bash's commands read their files through one helper that calls any
 * refusal "No such file or directory", so `cat build` said `cat: build: No
 * such file or directory` of a folder that exists; a few others printed the
 * Workspace's own refusal (`nl: Cannot read "/build": it is a directory
 * (EISDIR)`). After such a command has run, each line of its stderr that
 * says either of a folder is said as GNU's command says it: `cat: build: Is
 * a directory`, `head: error reading 'build': Is a directory`.
 *
 * just-bash's `md5sum`, `sha1sum` and `sha256sum` wrote such a refusal on
 * stdout, among the sums; it is moved to stderr. A refusal some commands let
 * escape as an error is written as just-bash writes an error (status 1),
 * and the Workspace's words in any such line (`nl: Cannot read "/x": no
 * such file or directory (ENOENT)`) are GNU's (`nl: x: No such file or
 * directory`).
 *
 * Invariant: only a line naming a path that is a folder changes (a "no such
 * file" line is checked with one `stat` of its path), and a sum's refusal
 * moves; the status, stdout and every other line are the command's own. GNU's output beside such a
 * line (`wc`'s line of zero counts) is not added.
 *
 * @module
 */
// The interpreter runs with no configuration file, so its import names the exact version.
// deno-lint-ignore no-import-prefix
import type { Command, ExecResult, ResolvedCommandContext } from "npm:just-bash@3.4.2";
import { refusalWords } from "./worker-shell-errno-words.ts";

/** GNU's words for a folder given to `command`, which names it `path`. */
type Words = (command: string, path: string) => string;

const NAMED: Words = (command, path) => `${command}: ${path}: Is a directory`;
const READING: Words = (command, path) => `${command}: error reading '${path}': Is a directory`;

/** The commands whose refusal of a folder is rewritten, with GNU's words for it. */
export const DIRECTORY_WORDS: ReadonlyMap<string, Words> = new Map([
  ["cat", NAMED],
  ["cut", NAMED],
  ["nl", NAMED],
  ["fold", NAMED],
  ["paste", NAMED],
  ["expand", NAMED],
  ["unexpand", NAMED],
  ["comm", NAMED],
  ["wc", NAMED],
  ["md5sum", NAMED],
  ["sha1sum", NAMED],
  ["sha256sum", NAMED],
  ["head", READING],
  ["tail", READING],
]);

const MISSING = ": No such file or directory";
/** The Workspace's own refusal of a read, which a few commands let through as it is. */
const WORKSPACE_REFUSAL = /^Cannot (?:read|resolve) "(.*)": .* \((E[A-Z]+)\)$/;

async function isFolder(ctx: ResolvedCommandContext, path: string): Promise<boolean> {
  try {
    return (await ctx.fs.stat(ctx.fs.resolvePath(ctx.cwd, path))).isDirectory;
  } catch {
    return false;
  }
}

/** The operand of `args` that names `absolute`, as it was written. */
function written(args: readonly string[], ctx: ResolvedCommandContext, absolute: string) {
  return args.find((arg) => ctx.fs.resolvePath(ctx.cwd, arg) === absolute) ?? absolute;
}

/** The commands whose refusals just-bash writes on stdout, among their sums. */
const REFUSING_ON_STDOUT: ReadonlySet<string> = new Set(["md5sum", "sha1sum", "sha256sum"]);

/** `result` with each refusal `command` wrote on stdout moved to stderr, where GNU's writes it. */
function refusalsOnStderr(command: string, result: ExecResult): ExecResult {
  if (!REFUSING_ON_STDOUT.has(command) || !result.stdout.includes(MISSING)) return result;
  const kept: string[] = [];
  let moved = "";
  for (const line of result.stdout.split(/(?<=\n)/)) {
    if (line.startsWith(`${command}: `) && line.endsWith(`${MISSING}\n`)) moved += line;
    else kept.push(line);
  }
  return { ...result, stdout: kept.join(""), stderr: moved + result.stderr };
}

/** `result` of `command` with each refusal of a folder, and the Workspace's own, in GNU's words. */
export async function withFoldersNamed(
  command: string,
  args: readonly string[],
  ctx: ResolvedCommandContext,
  ran: ExecResult,
): Promise<ExecResult> {
  const words = DIRECTORY_WORDS.get(command);
  const result = refusalsOnStderr(command, ran);
  if (words === undefined || result.stderr === "") return result;
  const prefix = `${command}: `;
  const lines = result.stderr.split("\n");
  let changed = false;
  for (const [index, line] of lines.entries()) {
    if (!line.startsWith(prefix)) continue;
    const said = line.slice(prefix.length);
    const refusal = WORKSPACE_REFUSAL.exec(said);
    if (refusal) {
      // The Workspace's words for the path as the script wrote it, in GNU's.
      const path = written(args, ctx, refusal[1]);
      lines[index] = refusal[2] === "EISDIR"
        ? words(command, path)
        : `${command}: ${path}: ${refusalWords(said)}`;
      changed = true;
    } else if (said.endsWith(MISSING)) {
      const named = said.slice(0, -MISSING.length);
      if (!await isFolder(ctx, named)) continue;
      lines[index] = words(command, named);
      changed = true;
    }
  }
  return changed ? { ...result, stderr: lines.join("\n") } : result;
}

/** `command` (or just-bash's of that name, when undefined) with its refusals of folders named. */
export function namingFolders(name: string, command?: Command): Command {
  return {
    name,
    async execute(args: string[], ctx: ResolvedCommandContext): Promise<ExecResult> {
      const run = command ? command.execute(args, ctx) : ctx.origCommand?.(args);
      if (run === undefined) throw new Error(`${name} needs just-bash's own ${name}`);
      let result: ExecResult;
      try {
        result = await run;
      } catch (error) {
        // Some (`nl`, `fold`, `expand`) let the Workspace's refusal escape as an error.
        const message = error instanceof Error ? error.message : "";
        if (!WORKSPACE_REFUSAL.test(message)) throw error;
        result = { stdout: "", stderr: `${name}: ${message}\n`, exitCode: 1 };
      }
      return await withFoldersNamed(name, args, ctx, result);
    },
  };
}

/**
 * `commands` with each of {@linkcode DIRECTORY_WORDS}' naming its folders:
 * one of them wrapped, any other over just-bash's of that name.
 */
export function namingFoldersIn(commands: readonly Command[]): Command[] {
  const own = new Set(commands.map((command) => command.name));
  return [
    ...commands.map((command) =>
      DIRECTORY_WORDS.has(command.name) ? namingFolders(command.name, command) : command
    ),
    ...[...DIRECTORY_WORDS.keys()].filter((name) => !own.has(name)).map((name) =>
      namingFolders(name)
    ),
  ];
}
