/**
 * The `xmd` command: dispatch and the one place errors become exit codes.
 *
 * Invariants:
 * - A user mistake (bad arguments, a bad document, bad props, a bad journal,
 *   a divergence, a secret, a remote host's refusal) prints one `xmd: …` line
 *   and exits 1, never a stack trace; a lost connection to a remote host exits
 *   75 (run it again). Only an unexpected error prints its stack, as a bug.
 *   That line never echoes an argument the secret gate would refuse.
 * - Each command loads only what it needs: this module imports no engine, no
 *   store and no npm package, and a command's modules (and the error classes,
 *   which bring the journal's schemas) are imported when that command runs,
 *   so `xmd --help` costs little more than the runtime's own start
 *   (`startup_module_graph_test.ts` keeps it so).
 *
 * @module
 */
import type { XmdErrorCode } from "@xmd/core/protocol";
import type { CommandIo } from "./command-io.ts";
import { type ColourMode, isColourMode, paintedStderr, paintsStderr } from "./colour.ts";
import { execProgress } from "./exec-progress.ts";
import cliConfig from "../../deno.json" with { type: "json" };

/** The version of the xmd packages (they are published together). */
const VERSION: string = cliConfig.version;

/** Usage of `xmd`. */
export const USAGE = `Usage: xmd [--cwd=<dir>] [--color=<when>] <command> [options]

Commands:
  run <document.md>            run a Markdown document on this machine
  workflow <command> [args]    retained, resumable runs (start, resume, answer, status,
                               list, history, cancel, delete, export, diff)
  completions <shell>          print a completion script (bash, zsh, fish)

Options:
  -V, --version                print the version
  -h, --help                   show this help

Options:
  --cwd=<dir>                  run as if started in <dir> (paths and effects resolve there)
  --color=auto|always|never    colour diagnostics on stderr (auto: a terminal, no NO_COLOR)

Run xmd <command> --help for a command's options.`;

/**
 * The codes of errors that are the user's to fix: their message is the whole
 * story. Any other error reaching here, even an `XmdError`, is a bug.
 */
const USER_ERRORS: ReadonlySet<XmdErrorCode> = new Set<XmdErrorCode>([
  "cli.usage",
  "document.unreadable",
  "document.invalid",
  "props.invalid",
  "journal.format",
  "journal.stopped",
  "journal.write",
  "journal.divergence",
  "secret.detected",
  "secret.scan_failed",
  "glob.pattern",
  "answer.unavailable",
  "answer.schema",
  "db.format",
  "db.version",
  "db.corrupt",
  "db.access",
  "run.not_found",
  "run.busy",
  "run.state",
  "run.conflict",
  "answer.refused",
  "executor.lost",
  "export.refused",
  "shell.permission",
  "shell.lost",
  "runs.folder",
  "remote.refused",
  "limit.row",
  "limit.staged",
  "run.exists",
]);

/** A lost connection to a remote host: run the command again (EX_TEMPFAIL, RM-43). */
const CONNECTION_LOST_EXIT = 75;

/** Runs `xmd` with `args` and returns the exit code. */
export async function main(args: readonly string[], io: CommandIo): Promise<number> {
  const typed = args;
  try {
    // Global options come before the command: --cwd=<dir> and --color=<mode>.
    let mode: ColourMode = "auto";
    while (args[0]?.startsWith("--cwd") || args[0]?.startsWith("--color")) {
      const [option, ...after] = args;
      const name = option.startsWith("--cwd") ? "--cwd" : "--color";
      if (option !== name && !option.startsWith(`${name}=`)) break;
      const given = (option === name ? after.shift() : option.slice(name.length + 1)) ?? "";
      if (name === "--cwd") io = await (await import("./command-io.ts")).inDirectory(io, given);
      else if (isColourMode(given)) mode = given;
      else throw await usageError(`Invalid --color=${given}: use auto, always or never`);
      args = after;
    }
    const terminal = io.stderrIsTerminal === true;
    const painting = paintsStderr(mode, io.env, terminal);
    const progress = execProgress(io.stderr, terminal, io.env, painting);
    if (painting) io = { ...io, stderr: paintedStderr(io.stderr) };
    if (progress) {
      io = {
        ...io,
        stdout: progress.follow(io.stdout),
        stderr: progress.follow(io.stderr),
        onExec: (label) => progress.start(label),
      };
    }
    const [command, ...rest] = args;
    switch (command) {
      case "run":
        return await (await import("./run-command.ts")).runCommand(rest, io);
      case "workflow": {
        // A start of a document that visibly runs shell blocks has Worker Shell's interpreter
        // loading in its own process before the workflow command's modules load (WF-190).
        await using early = rest[0] === "start"
          ? await (await import("./early-interpreter.ts")).earlyInterpreter(rest.slice(1), io)
          : undefined;
        return await (await import("./workflow-command.ts")).workflowCommand(rest, io, early);
      }
      case "completions":
        return await completions(rest, io);
      case "--version":
      case "-V":
        io.stdout(`xmd ${VERSION} (deno ${Deno.version.deno})\n`);
        return 0;
      case undefined:
      case "help":
      case "--help":
      case "-h":
        io.stdout(USAGE + "\n");
        return command === undefined ? 1 : 0;
      default: {
        const { unknownCommand } = await import("./command-line.ts");
        throw unknownCommand(command, ["run", "workflow", "completions"], "xmd");
      }
    }
  } catch (error) {
    const { XmdError } = await import("@xmd/core/protocol");
    if (error instanceof XmdError && error.code === "connection.lost") {
      io.stderr(
        `xmd: ${error.message}\nRun the same command again: it continues from what the remote host committed\n`,
      );
      return CONNECTION_LOST_EXIT;
    }
    if (error instanceof XmdError && USER_ERRORS.has(error.code)) {
      const { withoutTypedSecrets } = await import("./argument-echo.ts");
      io.stderr(`xmd: ${await withoutTypedSecrets(error.message, typed)}\n`);
      return 1;
    }
    io.stderr(
      `xmd: internal error (a bug in xmd, please report it):\n${
        error instanceof Error ? error.stack : String(error)
      }\n`,
    );
    return 1;
  }
}

/** A command-line refusal; its class (an `XmdError`) is loaded only when one is made. */
async function usageError(message: string): Promise<Error> {
  const { UsageError } = await import("./usage-error.ts");
  return new UsageError(message);
}

async function completions(args: readonly string[], io: CommandIo): Promise<number> {
  if (args.length === 1 && args[0] === "--run-ids") {
    const { runIds } = await import("./workflow-command.ts");
    for (const id of await runIds(io)) io.stdout(`${id}\n`);
    return 0;
  }
  if (args.length === 1 && (args[0] === "--help" || args[0] === "-h")) {
    io.stdout(COMPLETIONS_USAGE);
    return 0;
  }
  const { completionScript, SHELLS } = await import("./completions.ts");
  if (args.length !== 1) {
    throw await usageError(
      `xmd completions takes one shell (${SHELLS.join(", ")}): run xmd completions --help`,
    );
  }
  io.stdout(completionScript(args[0]));
  return 0;
}

const COMPLETIONS_USAGE = `Usage: xmd completions <bash|zsh|fish>

Print a completion script for your shell: commands, options, and run ids for
workflow commands that take one.

Examples:
  eval "$(xmd completions bash)"      # in ~/.bashrc
  eval "$(xmd completions zsh)"       # in ~/.zshrc
  xmd completions fish | source       # in ~/.config/fish/config.fish
`;
