/**
 * The `xmd` command: dispatch and the one place errors become exit codes.
 *
 * Invariant: a user mistake (bad arguments, a bad document, bad props, a bad
 * journal, a divergence, a secret) prints one `xmd: …` line and exits 1,
 * never a stack trace. Only an unexpected error prints its stack, as a bug.
 *
 * @module
 */
import { type CommandIo, inDirectory } from "./command-io.ts";
import { RUN_USAGE, runCommand } from "./run-command.ts";
import { UsageError } from "./usage-error.ts";
import { workflowCommand } from "./workflow-command.ts";

/** Usage of `xmd`. */
export const USAGE = `Usage: xmd [--cwd=<dir>] <command> [options]

Commands:
  run <document.md>            run a Markdown document on this machine
  workflow <command> [args]    retained, resumable runs (start, resume, answer, status,
                               list, history, cancel, delete, export, diff)

Options:
  --cwd=<dir>                  run as if started in <dir> (paths and effects resolve there)

Run xmd <command> --help for a command's options.`;

/** Error classes that are the user's to fix: their message is the whole story. */
const USER_ERRORS = new Set([
  "UsageError",
  "DocumentError",
  "PropsError",
  "JournalFormatError",
  "JournalStoppedError",
  "JournalWriteError",
  "DivergenceError",
  "SecretDetectedError",
  "SecretScanError",
  "GlobPatternError",
  "ElicitAnswerError",
  "AnswerSchemaError",
  "WorkflowDatabaseFormatError",
  "WorkflowSchemaVersionError",
  "WorkflowDatabaseCorruptError",
  "RunDatabaseAccessError",
  "RunNotFoundError",
  "RunBusyError",
  "RunStateError",
  "RunConflictError",
  "AnswerRefusedError",
  "ExecutorLostError",
  "ExportRefusedError",
  "WorkerShellPermissionError",
  "ShellLostError",
  "RunsFolderError",
]);

/** Runs `xmd` with `args` and returns the exit code. */
export async function main(args: readonly string[], io: CommandIo): Promise<number> {
  try {
    if (args[0] === "--cwd" || args[0]?.startsWith("--cwd=")) {
      const [option, ...after] = args;
      const given = option === "--cwd" ? after.shift() : option.slice("--cwd=".length);
      return await main(after, await inDirectory(io, given ?? ""));
    }
    const [command, ...rest] = args;
    switch (command) {
      case "run":
        return await runCommand(rest, io);
      case "workflow":
        return await workflowCommand(rest, io);
      case undefined:
      case "help":
      case "--help":
      case "-h":
        io.stdout(USAGE + "\n");
        return command === undefined ? 1 : 0;
      default:
        throw new UsageError(`Unknown command "${command}": run xmd --help for the commands`);
    }
  } catch (error) {
    if (error instanceof Error && USER_ERRORS.has(error.name)) {
      io.stderr(`xmd: ${error.message}\n`);
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

export { RUN_USAGE };
