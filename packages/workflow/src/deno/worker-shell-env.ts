/**
 * `env` running a command in Worker Shell (WS-135): just-bash's `env` gave
 * the command its assignments as variables but not as exported ones, so a
 * shell it started lost them (`env A=1 sh -c 'echo $A'` printed an empty
 * line), and `-u NAME` left NAME set there. When `env` runs a command, this
 * command runs it itself, as the shell runs `NAME=value command` (each
 * assignment exported to the command), after `-u`'s unsets, in an empty
 * environment with `-i` (or `-`), from `-C DIR`'s folder. `HOME` and `PATH`
 * stay: every shell just-bash starts begins with the block's own (`HOME=/`,
 * `PATH=/usr/bin:/bin`). Any other `env` (printing the environment, `-S`,
 * `-0`) is just-bash's, unchanged.
 *
 * @module
 */
// The interpreter runs with no configuration file, so its import names the exact version.
// deno-lint-ignore no-import-prefix
import type { Command, ExecResult, ResolvedCommandContext } from "npm:just-bash@3.4.2";

/** What `env ARGS` runs, when it runs a command this command handles; undefined otherwise. */
export interface EnvRun {
  ignoreEnvironment: boolean;
  unset: string[];
  chdir?: string;
  assignments: [string, string][];
  command: string[];
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Reads `args` as GNU env does; undefined unless they run a command with nothing else asked. */
export function envRunOf(args: readonly string[]): EnvRun | undefined {
  const run: EnvRun = { ignoreEnvironment: false, unset: [], assignments: [], command: [] };
  let index = 0;
  for (; index < args.length; index++) {
    const arg = args[index];
    if (arg === "--") {
      index++;
      break;
    }
    if (arg === "-" || arg === "-i" || arg === "--ignore-environment") {
      run.ignoreEnvironment = true;
    } else if (arg === "-u" || arg === "--unset") {
      if (index + 1 >= args.length) return undefined;
      run.unset.push(args[++index]);
    } else if (arg.startsWith("--unset=")) {
      run.unset.push(arg.slice("--unset=".length));
    } else if (arg.startsWith("-u") && arg.length > 2) {
      run.unset.push(arg.slice(2));
    } else if (arg === "-C" || arg === "--chdir") {
      if (index + 1 >= args.length) return undefined;
      run.chdir = args[++index];
    } else if (arg.startsWith("--chdir=")) {
      run.chdir = arg.slice("--chdir=".length);
    } else if (arg.startsWith("-")) {
      // Clusters and the options this does not take (-0, -S, -v, ...) stay just-bash's.
      return undefined;
    } else {
      break;
    }
  }
  for (; index < args.length; index++) {
    const arg = args[index];
    const at = arg.indexOf("=");
    if (at <= 0) break;
    run.assignments.push([arg.slice(0, at), arg.slice(at + 1)]);
  }
  run.command = args.slice(index);
  if (run.command.length === 0) return undefined;
  if (![...run.unset, ...run.assignments.map(([name]) => name)].every((name) => NAME.test(name))) {
    return undefined;
  }
  return run;
}

function quoted(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

/** Worker Shell's `env`: just-bash's, running a command as the module's documentation says. */
export const envCommand: Command = {
  name: "env",
  async execute(args: string[], ctx: ResolvedCommandContext): Promise<ExecResult> {
    if (ctx.origCommand === undefined || ctx.execWithInheritedStdin === undefined) {
      throw new Error("env needs just-bash's own env and the shell's exec");
    }
    const run = envRunOf(args);
    if (run === undefined) return await ctx.origCommand(args);
    const unsets = run.unset.map((name) => `unset -v ${name}; `).join("");
    const assignments = run.assignments.map(([name, value]) => `${name}=${quoted(value)} `).join(
      "",
    );
    const script = `${unsets}${assignments}${run.command.map(quoted).join(" ")}`;
    const cwd = run.chdir === undefined ? ctx.cwd : ctx.fs.resolvePath(ctx.cwd, run.chdir);
    // The command's own environment: every exported variable, or none with -i.
    const env = run.ignoreEnvironment ? {} : { ...(ctx.exportedEnv ?? {}) };
    return await ctx.execWithInheritedStdin(script, { cwd, env, replaceEnv: true });
  },
};
