/**
 * `xmd workflow`: retained runs on this machine.
 *
 * ```
 * xmd workflow start [--id=<run-id>] [--props-*=…] <document.md[#target]>
 * xmd workflow resume [--no-secret-detection] <run-id>
 * xmd workflow answer [--no-secret-detection] [--file=<path> | --text=<value>]
 *                     <run-id> <suspension-id|name> [<json> | -]
 * xmd workflow status <run-id> [--json]
 * xmd workflow list [--status=<status>] [--json]
 * xmd workflow history <run-id> [--json]
 * xmd workflow cancel <run-id>
 * xmd workflow delete <run-id>
 * xmd workflow export <run-id> [--at=<event-id>] [--preserve-modes] <directory>
 * xmd workflow diff <run-id> <event-a> <event-b> [--json]
 * ```
 *
 * stdout carries the rendered document or the command's answer; stderr
 * carries `workflow run: <id>` once the run exists and `workflow status: <s>`
 * only after that status is committed. Exit codes: 0 completed, 1 refused or
 * failed, 2 suspended, 3 cancelled, 130 interrupted; 75 when the remote
 * host's connection was lost (`cli.ts`).
 *
 * With `--remote` (or `XMD_WORKFLOW_REMOTE`, `remote-workflow.ts`) every
 * command runs on the remote host, the run named by its issue in place of
 * `<run-id>`; printed commands then name it `--issue=<issue>`.
 *
 * @module
 */
import { XmdError } from "@xmd/core/protocol";
import {
  checkWorkflowSupport,
  type ExecutionIo,
  type ExecutionReport,
  ExportRefusedError,
  RUN_STATUSES,
  RunConflictError,
  type RunInspection,
  RunNotFoundError,
  RunsFolderError,
  RunStateError,
  type RunStateReason,
  type RunStatus,
  ShellLostError,
  type WorkflowHost,
} from "@xmd/workflow";
import {
  type LocalStartOptions,
  LocalWorkflowHost,
  type WorkerShellOptions,
} from "@xmd/workflow/deno/local";
import { isAbsolutePath, joinPath } from "@xmd/core/deno/internal";
import { heapLimitMib } from "./early-interpreter.ts";
import { answerForm, readAnswer, resolveQuestion } from "./answer-input.ts";
import type { CommandIo } from "./command-io.ts";
import { typedLabel } from "./typed-label.ts";
import {
  commandHelp,
  type CommandSpec,
  parseCommand,
  type ParsedCommand,
  unknownCommand,
} from "./command-line.ts";
import {
  type RemoteChoice,
  remoteChoice,
  type RemoteOptions,
  takeRemoteOptions,
} from "./remote-options.ts";
import { parseRunArguments } from "./run-arguments.ts";
import { WORKFLOW_COMMANDS } from "./workflow-commands.ts";
import { UsageError } from "./usage-error.ts";
import { HistoryJsonWriter } from "./history-json.ts";
import {
  describeStop,
  formatHistoryRows,
  formatList,
  formatStatus,
  formatStatusMarkdown,
  historyRow,
  inspectionJson,
} from "./workflow-format.ts";

/** Usage of `xmd workflow`. */
export const WORKFLOW_USAGE = `Usage: xmd workflow <command> [options]

Runs documents as retained, resumable workflow runs, stored under
XMD_WORKFLOW_RUNS (an absolute folder) or ~/.xmd/runs.

Commands:
  start [--id=<run-id>] [--props-<name>=<value>]… [--no-secret-detection]
        <document.md[#Section/Sub]>
  resume [--no-secret-detection] <run-id>
  answer [--no-secret-detection] [--file=<path> | --text=<value>]
         <run-id> <suspension-id|name> [<json> | -]
  status <run-id> [--json | --format=text|json|markdown]
  list [--status=<status>] [--json]
  history <run-id> [--json]
  cancel <run-id>
  delete <run-id>
  export <run-id> [--at=<event-id>] [--preserve-modes] <directory>
  diff <run-id> <event-a> <event-b> [--json]

export writes the run's Workspace as it is now (or, with --at, as it was after
that event) into a new or empty directory: directories, files with their
permission bits, symlinks with their targets verbatim. Hard links are recreated
from the live Workspace; a root older than the live one records no inode
identity, so its hard-linked files are written as separate copies. Modes lose
their set-uid, set-gid and sticky bits and pass through your umask, as for any
file a program creates; --preserve-modes writes them exactly as the run
recorded them. An export that fails leaves nothing behind.
diff lists the paths added (A), removed (D) and changed (M) between the
Workspace after <event-a> and after <event-b>; history shows each event's root.

Exit codes: 0 completed, 1 refused or failed, 2 suspended (waiting for an
answer), 3 cancelled, 130 interrupted (resume it), 75 the remote host's
connection was lost (run the same command again).

--remote=<url> (or XMD_WORKFLOW_REMOTE) runs every command on a remote host
(a deployed xmd Worker) from a GitHub Actions job with id-token: write; the
run is a GitHub issue's, named by --issue=<owner/repo#number> or its node id
(default: the issue of the job's event) in place of <run-id>.

Examples:
  xmd workflow start --id=release-1 --props-release=1.4.0 examples/approval.md
  xmd workflow answer release-1 decision-2 '{"approve":true}'
  xmd workflow resume release-1

Run xmd workflow <command> --help for a command's options.`;

const EXIT: Record<RunStatus, number> = {
  completed: 0,
  failed: 1,
  suspended: 2,
  cancelled: 3,
  interrupted: 130,
  running: 1,
};

/** The runs folder: `XMD_WORKFLOW_RUNS` (absolute) or `~/.xmd/runs`. */
export function runsFolder(env: Record<string, string | undefined>): string {
  const configured = env.XMD_WORKFLOW_RUNS;
  if (configured !== undefined && configured !== "") {
    if (!isAbsolutePath(configured)) {
      throw new UsageError(
        `XMD_WORKFLOW_RUNS must be an absolute path, not "${configured}": set it to a full path such as /home/me/runs`,
      );
    }
    return configured;
  }
  const home = env.HOME;
  if (!home) {
    throw new UsageError("Cannot find the runs folder: set HOME or XMD_WORKFLOW_RUNS");
  }
  return joinPath(home, ".xmd", "runs");
}

/** Worker Shell's options: `XMD_WORKER_SHELL_HEAP_MIB` sets its interpreter's heap limit. */
export function shellOptions(env: Record<string, string | undefined>): WorkerShellOptions {
  const mib = heapLimitMib(env);
  if (mib === null) {
    throw new UsageError(
      "XMD_WORKER_SHELL_HEAP_MIB must be a whole number of MiB, at least 16 (the default is 2048)",
    );
  }
  return mib === undefined ? {} : { heapLimitMib: mib };
}

/**
 * Runs `xmd workflow` and returns the exit code. `early` is Worker Shell's
 * interpreter the dispatch started for a `start` (WF-190): the start runs its
 * first block in it or disposes of it.
 */
export async function workflowCommand(
  args: readonly string[],
  io: CommandIo,
  early?: LocalStartOptions["prestarted"],
): Promise<number> {
  try {
    return await dispatch(args, io, early);
  } catch (error) {
    if (!(error instanceof RunsFolderError)) throw error;
    throw new RunsFolderError(
      `${error.message}. ${
        io.env.XMD_WORKFLOW_RUNS
          ? "Set XMD_WORKFLOW_RUNS to a folder you can write, or unset it to use ~/.xmd/runs"
          : "Set XMD_WORKFLOW_RUNS to a folder you can write"
      }`,
      { cause: error },
    );
  }
}

/**
 * The host every `xmd workflow` command talks to. Commands know only the
 * `WorkflowHost` contract; this is the one place a host is chosen (the local
 * runs folder today).
 */
function hostFor(io: CommandIo): LocalWorkflowHost {
  return new LocalWorkflowHost(runsFolder(io.env), { shell: shellOptions(io.env) });
}

/** The ids of the runs in the runs folder, for shell completion (nothing is locked or run). */
export async function runIds(io: CommandIo): Promise<string[]> {
  return (await hostFor(io).list()).runs.map((run) => run.record.id);
}

async function dispatch(
  args: readonly string[],
  io: CommandIo,
  early: LocalStartOptions["prestarted"],
): Promise<number> {
  const [command, ...rest] = args;
  if (command === undefined || command === "--help" || command === "-h" || command === "help") {
    io.stdout(WORKFLOW_USAGE + "\n");
    return command === undefined ? 1 : 0;
  }
  const spec = WORKFLOW_COMMANDS[command];
  if (!Object.hasOwn(WORKFLOW_COMMANDS, command)) {
    throw unknownCommand(command, Object.keys(WORKFLOW_COMMANDS), "xmd workflow");
  }
  const options = takeRemoteOptions(rest);
  const choice = remoteChoice(options.remote, io.env);
  if (choice === undefined && options.issue !== undefined) {
    throw new UsageError(
      "Option --issue names a remote run: select the remote host with --remote=<url> or XMD_WORKFLOW_REMOTE",
    );
  }
  if (command === "start") return await start(choice, options, io, early);
  // A remote run is its issue's: the issue takes the place of <run-id>.
  const parsed = parseCommand(choice ? remoteSpec(spec) : spec, options.args);
  if (parsed.help) {
    io.stdout(commandHelp(spec));
    return 0;
  }
  let host: WorkflowHost;
  let name: RunName;
  if (choice) {
    const remote = await remoteRun(choice, options.issue, io.env);
    host = remote.host;
    name = { text: remote.name, remote: true };
    if (command !== "list") parsed.positionals.unshift(remote.id);
  } else {
    host = hostFor(io);
    name = { text: parsed.positionals[0], remote: false };
  }
  try {
    return await run(command, host, parsed, io, name);
  } catch (error) {
    // Every command but `list` names its run first.
    throw command === "list" ? error : advised(error, parsed.positionals[0], name);
  }
}

/** The run of an issue on the remote host `choice`; its client is loaded only then. */
async function remoteRun(
  choice: RemoteChoice,
  issue: string | undefined,
  env: Record<string, string | undefined>,
) {
  return await (await import("./remote-workflow.ts")).remoteRun(choice, issue, env);
}

/** How a printed command names a run: its id, or `--issue=<issue>` for a remote one. */
interface RunName {
  /** What follows the subcommand: `release-1`, `--issue=octo/app#12`. */
  text: string;
  /** Whether the run is remote (its issue's). */
  remote: boolean;
}

/** `spec` as `--remote` reads it: without `<run-id>`, which the issue replaces. */
function remoteSpec(spec: CommandSpec): CommandSpec {
  return { ...spec, positionals: spec.positionals.filter((p) => p !== "<run-id>") };
}

/** Runs a workflow command other than `start`, as parsed. */
async function run(
  command: string,
  host: WorkflowHost,
  parsed: ParsedCommand,
  io: CommandIo,
  name: RunName,
): Promise<number> {
  const positionals = parsed.positionals;
  const json = parsed.values.json === true;
  const flags = new Set(
    Object.entries(parsed.values).filter(([, value]) => value === true).map(([name]) =>
      `--${name}`
    ),
  );
  switch (command) {
    case "resume": {
      const [id] = positionals;
      const secretDetection = secretDetectionOf(flags, io);
      return await execute(
        host,
        io,
        name,
        secretDetection,
        (executionIo) => host.resume(id, executionIo),
      );
    }
    case "answer": {
      const [id, question, json] = positionals;
      const form = answerForm(
        json,
        parsed.values.file as string | undefined,
        parsed.values.text as string | undefined,
      );
      const value = await readAnswer(form, io);
      const secretDetection = secretDetectionOf(flags, io);
      const suspensionId = await resolveQuestion(host, id, question, form);
      await host.answer(id, suspensionId, value, secretDetection);
      io.stdout(
        `answered ${suspensionId} of run ${id}; continue it with: xmd workflow resume ${name.text}\n`,
      );
      return 0;
    }
    case "status": {
      const [id] = positionals;
      const format = parsed.values.format ?? (json ? "json" : "text");
      if (format !== "text" && format !== "json" && format !== "markdown") {
        throw new UsageError(`Unknown format "${format}": use text, json or markdown`);
      }
      const inspection = await host.inspect(id);
      io.stdout(
        format === "json"
          ? JSON.stringify(inspectionJson(inspection), null, 2) + "\n"
          : format === "markdown"
          ? formatStatusMarkdown(inspection, name.text)
          : formatStatus(inspection, Date.now(), name.text),
      );
      return 0;
    }
    case "list": {
      const status = parsed.values.status as string | undefined;
      if (status !== undefined && !(RUN_STATUSES as readonly string[]).includes(status)) {
        throw new UsageError(
          `Unknown status "${status}": use one of ${RUN_STATUSES.join(", ")}`,
        );
      }
      const listing = await host.list();
      for (const problem of listing.unreadable) {
        io.stderr(`xmd: warning: skipped ${problem.file}: ${problem.reason}\n`);
      }
      const runs = listing.runs.filter((run) =>
        status === undefined || run.record.status === status
      );
      io.stdout(
        json
          ? JSON.stringify(runs.map(inspectionJson), null, 2) + "\n"
          : formatList(runs, Date.now()),
      );
      return 0;
    }
    case "history": {
      const [id] = positionals;
      if (json) {
        // Written as it is read (WF-202): one page of events is held, however long the journal.
        const writer = new HistoryJsonWriter(io.stdout);
        await host.streamHistory(id, writer);
        writer.end();
        return 0;
      }
      const now = Date.now();
      let inspection: RunInspection | undefined;
      const rows: string[][] = [];
      await host.streamHistory(id, {
        inspection: (read) => inspection = read,
        events: (page) => {
          for (const entry of page) rows.push(historyRow(entry, now));
        },
      });
      io.stdout(formatHistoryRows(inspection!, rows, now, name.text));
      return 0;
    }
    case "export": {
      const [id, directory] = positionals;
      const atValue = parsed.values.at as string | undefined;
      const at = atValue === undefined ? null : eventId(atValue);
      const preserveModes = flags.has("--preserve-modes");
      const exported = await host.export(id, at, io.resolve(directory), { preserveModes })
        .catch((error) => {
          throw error instanceof ExportRefusedError && error.path !== undefined
            ? new ExportRefusedError(`${error.message}. ${exportAdvice(error.posix, name)}`, {
              cause: error,
              posix: error.posix,
              path: error.path,
            })
            : error;
        });
      const counts = [
        count(exported.files, "file"),
        count(exported.directories, "directory", "directories"),
        count(exported.symlinks, "symlink"),
        count(exported.hardLinks, "hard link"),
      ];
      io.stdout(
        `exported run ${id} at root ${exported.root.slice(0, 12)} (${
          exported.event === null ? "before any event" : `after event ${exported.event}`
        }) to ${io.resolve(directory)}: ${counts.join(", ")}\n`,
      );
      return 0;
    }
    case "diff": {
      const [id, from, to] = positionals;
      const diff = await host.diff(id, eventId(from), eventId(to));
      const { formatDiff } = await import("./diff-format.ts");
      io.stdout(json ? JSON.stringify(diff, null, 2) + "\n" : formatDiff(diff));
      return 0;
    }
    case "cancel": {
      const [id] = positionals;
      await host.cancel(id);
      io.stdout(`cancelled run ${id}\n`);
      return 0;
    }
    case "delete": {
      const [id] = positionals;
      await host.delete(id);
      io.stdout(`deleted run ${id}\n`);
      return 0;
    }
  }
  throw new UsageError(`Unknown workflow command "${command}": run xmd workflow --help`);
}

async function start(
  choice: RemoteChoice | undefined,
  remoteOptions: RemoteOptions,
  io: CommandIo,
  early: LocalStartOptions["prestarted"],
) {
  const args = remoteOptions.args;
  let id: string | undefined;
  const rest: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    if (arg === "--") {
      rest.push(...args.slice(index));
      break;
    }
    if (arg.startsWith("--id=")) id = arg.slice("--id=".length);
    else if (arg === "--id") {
      id = args[++index];
      if (id === undefined) throw new UsageError("Option --id needs a value: write --id <run-id>");
    } else rest.push(arg);
  }
  if (choice && id !== undefined) {
    throw new UsageError(
      "Option --id names a local run: a remote run is its issue's, named by --issue (or the Actions event)",
    );
  }
  const options = parseRunArguments(rest, "xmd workflow start");
  if (options.journal !== undefined || options.replay !== undefined || options.answers.size > 0) {
    throw new UsageError(
      "Options --journal, --replay and --answer belong to xmd run: a workflow run keeps its own journal and is answered with xmd workflow answer",
    );
  }
  if (!options.document) {
    if (options.help) {
      io.stdout(commandHelp(WORKFLOW_COMMANDS.start));
      return 0;
    }
    throw new UsageError("Missing document: write xmd workflow start <document.md>");
  }
  // Worker Shell's interpreter, started before this module loaded (WF-170, WF-190), loads (about
  // 100 ms of CPU, its own process) while the document is read and checked; the start runs its
  // first block in it, or it is killed and waited for.
  await using prestarted = early;
  if (choice || options.help) await prestarted?.[Symbol.asyncDispose]();
  // The document, its props and the engine are this command's alone: loaded here, not at start.
  // One after the other: Deno 2.9 can panic on a dynamic import started while another one's
  // graph is still being registered.
  const { DocumentError, resolveProps } = await import("@xmd/core");
  const { typedDocumentError, typedPositions } = await import("@xmd/core/deno");
  const { documentHelp, loadHostProgram } = await import("./host-documents.ts");
  const program = await loadHostProgram(io.cwd, options.document, options.target);
  if (options.help) {
    io.stdout(
      documentHelp(
        "xmd workflow start [--id=<run-id>] [options]",
        options.document,
        options.target,
        program,
      ),
    );
    return 0;
  }
  try {
    checkWorkflowSupport(program);
  } catch (error) {
    // Each refusal here is a block Worker Shell cannot run; `xmd run` runs it on this machine.
    if (!(error instanceof DocumentError)) throw error;
    const reason = `${error.reason}. Run this document with xmd run instead`;
    throw typedDocumentError(
      options.document,
      new DocumentError(reason, error.position, { cause: error }),
    );
  }
  const props = resolveProps(program.root.props, {
    options: options.propOptions,
    propsJson: options.propsJson,
    env: io.env,
  });
  let host: WorkflowHost;
  let name: RunName | undefined;
  const request = () => ({ id, program, target: options.target, props });
  let run: (executionIo: ExecutionIo) => Promise<ExecutionReport>;
  if (choice) {
    const remote = await remoteRun(choice, remoteOptions.issue, io.env);
    host = remote.host;
    id = remote.id;
    name = { text: remote.name, remote: true };
    run = (executionIo) => remote.host.start(request(), executionIo);
  } else {
    const local = hostFor(io);
    host = local;
    if (id !== undefined) name = { text: id, remote: false };
    run = (executionIo) => local.start(request(), executionIo, { prestarted });
  }
  if (options.noSecretDetection) {
    io.stderr("xmd: warning: secret detection is off for this command\n");
  }
  try {
    return await execute(
      host,
      io,
      (runId) => name ?? { text: runId, remote: false },
      !options.noSecretDetection,
      run,
      typedPositions(options.document, program),
    );
  } catch (error) {
    throw name === undefined ? error : advised(error, id!, name);
  }
}

/**
 * `error` with the command that continues from it, for the refusals of run
 * `id` that have one; the host's message states only the fact.
 */
function advised(error: unknown, id: string, name: RunName): unknown {
  const options = { cause: error };
  const run = name.text;
  if (error instanceof RunConflictError) {
    return new RunConflictError(
      name.remote
        ? `${error.message}. Continue the existing run with xmd workflow resume ${run}, or delete it with xmd workflow delete ${run} to start the issue's run anew`
        : `${error.message}. Choose another --id, or continue the existing run with xmd workflow resume ${run}`,
      options,
    );
  }
  if (error instanceof RunNotFoundError && error.reason !== "invalid-id") {
    const next = error.reason === "unfinished-start"
      ? `Start it again with xmd workflow start --id=${id}`
      : name.remote
      ? `Start it with xmd workflow start ${run} <document.md>`
      : "List runs with xmd workflow list";
    return new RunNotFoundError(`${error.message}. ${next}`, error.reason, options);
  }
  if (error instanceof RunStateError) {
    const next: Partial<Record<RunStateReason, string>> = {
      "answer-waiting": `Run xmd workflow resume ${run}`,
      "secret-stop":
        `Resume it with xmd workflow resume --no-secret-detection ${run} to keep what it produces, or cancel it with xmd workflow cancel ${run}`,
      "no-such-event": `List them with xmd workflow history ${run}`,
    };
    const advice = next[error.reason];
    if (advice) return new RunStateError(`${error.message}. ${advice}`, error.reason, options);
  }
  return error;
}

/** Runs a start or resume, printing the run id once it exists and the status once committed. */
async function execute(
  host: WorkflowHost,
  io: CommandIo,
  nameOf: RunName | ((id: string) => RunName),
  secretDetection: boolean,
  run: (executionIo: ExecutionIo) => Promise<ExecutionReport>,
  display: (message: string) => string = (message) => message,
): Promise<number> {
  let id: string | undefined;
  let report: ExecutionReport;
  const label = typedLabel(display);
  try {
    report = await run({
      stdout: io.stdout,
      stderr: io.stderr,
      onRun: (runId) => {
        id = runId;
        io.stderr(`workflow run: ${runId}\n`);
      },
      signal: io.signal,
      secretDetection,
      ...(io.onExec ? { onExec: (position) => io.onExec!(label(position)) } : {}),
    });
  } catch (error) {
    // An error the journal must not record (a secret, a divergence, storage) settles the run
    // before it propagates; say how it ended, as for any other ending. A refusal leaves the
    // run as it was and prints no status.
    if (id === undefined) throw error;
    const { SecretDetectedError, SecretScanError } = await import("@xmd/core");
    const name = typeof nameOf === "function" ? nameOf(id) : nameOf;
    const run = name.text;
    const record = await host.inspect(id).then(({ record }) => record, () => undefined);
    if (record?.status === "failed" || record?.status === "interrupted") {
      io.stderr(`workflow status: ${record.status}\n`);
    }
    if (record?.status === "interrupted" && error instanceof ShellLostError) {
      // The environment stopped the block, not the document: the run resumes.
      io.stderr(`xmd: ${error.message}\nContinue the run with: xmd workflow resume ${run}\n`);
      return EXIT.interrupted;
    }
    if (
      record?.status === "interrupted" &&
      (error instanceof SecretDetectedError || error instanceof SecretScanError)
    ) {
      io.stderr(
        `xmd: ${error.message}\n` +
          `Run ${id} stopped before that effect was kept (nothing of it was written). ` +
          `Resume it with xmd workflow resume --no-secret-detection ${run} to keep what it produces, ` +
          `or cancel it with xmd workflow cancel ${run}\n`,
      );
      return 1;
    }
    if (record?.status === "failed" && error instanceof XmdError && error.code === "limit.row") {
      // The remote host's row cap (RM-48): the document, not the host, must change.
      const anew = name.remote
        ? `delete it with xmd workflow delete ${run}, then start the issue's run again`
        : "start a new run";
      io.stderr(
        `xmd: ${error.message}\n` +
          `Run ${id} failed there, every earlier effect kept. A remote run stores no single value over 1.75 MiB: ` +
          `write large output to a file in the Workspace instead (for a shell block, redirect it), then ${anew}\n`,
      );
      return 1;
    }
    throw error;
  }
  return await finish(
    host,
    report,
    io,
    typeof nameOf === "function" ? nameOf(report.id) : nameOf,
    display,
  );
}

/** Whether `--no-secret-detection` left the gate on; warns when it did not. */
function secretDetectionOf(flags: Set<string>, io: CommandIo): boolean {
  if (!flags.has("--no-secret-detection")) return true;
  io.stderr("xmd: warning: secret detection is off for this command\n");
  return false;
}

async function finish(
  host: WorkflowHost,
  report: ExecutionReport,
  io: CommandIo,
  name: RunName,
  display: (message: string) => string,
): Promise<number> {
  const run = name.text;
  const anew = name.remote
    ? `delete it with xmd workflow delete ${run}, then start the issue's run again`
    : "start a new run";
  io.stderr(`workflow status: ${report.status}\n`);
  if (report.failure) io.stderr(`xmd: ${display(report.failure)}\n`);
  if (report.status === "failed" && !report.failure) {
    // Stopped by the host (divergence, secret, storage): the reason is in the record.
    const { record } = await host.inspect(report.id);
    io.stderr(`xmd: run ${report.id} failed: ${describeStop(record.stopReason)}\n`);
  }
  if (report.status === "failed") {
    io.stderr(`Run ${report.id} cannot be resumed: ${anew} to try again\n`);
  }
  if (report.status === "cancelled") {
    io.stderr(
      `Run ${report.id} was cancelled; it cannot be resumed: ${anew} to do it again\n`,
    );
  }
  if (report.status === "interrupted") {
    io.stderr(`Continue the run with: xmd workflow resume ${run}\n`);
  }
  const pending = report.pendingSuspension;
  if (report.status === "suspended" && pending) {
    if (pending.answered) {
      io.stderr(
        `An answer to ${pending.suspensionId} is waiting: xmd workflow resume ${run}\n`,
      );
    } else {
      io.stderr(
        `Question (${pending.suspensionId}): ${pending.question}\n` +
          `Answer schema: ${JSON.stringify(pending.schema)}\n` +
          `Answer with: xmd workflow answer ${run} ${pending.suspensionId} '<json>'\n`,
      );
    }
  }
  return EXIT[report.status];
}

/** What to do when the host refused a path of the Workspace being exported. */
function exportAdvice(code: string | undefined, name: RunName): string {
  return code === "ENAMETOOLONG"
    ? `This file system cannot hold that name: export the root of an earlier event with --at=<event-id> (see xmd workflow history ${name.text}), or change the document`
    : "Remove the cause and export again";
}

/** An event id as the user typed it: a positive integer. */
function eventId(text: string): number {
  if (!/^[1-9][0-9]{0,15}$/.test(text)) {
    throw new UsageError(
      `Invalid event id "${text}": use an event number from xmd workflow history <run-id>`,
    );
  }
  return Number(text);
}

function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
