/**
 * `xmd run`: executes a document against the caller's machine. Nothing is
 * promised afterwards; `--journal` writes a diagnostic trace that `--replay`
 * reproduces (completed) or continues live (truncated).
 *
 * Order matters: the document, its components and its props are checked
 * before any journal is opened and before anything runs.
 *
 * @module
 */
import {
  createSecretGate,
  disabledSecretGate,
  type DurableStream,
  Journal,
  MemoryStream,
  resolveProps,
  runProgram,
} from "@xmd/core";
import {
  HostFileSystem,
  HostShell,
  JsonlStream,
  TerminalElicit,
  TerminalLine,
  typedPositions,
} from "@xmd/core/deno";
import { observedShell } from "@xmd/core/internal";
import type { CommandIo } from "./command-io.ts";
import { typedLabel } from "./typed-label.ts";
import { documentHelp, loadHostProgram } from "./host-documents.ts";
import { checkAnswers } from "./run-answers.ts";
import { parseRunArguments, type RunArguments } from "./run-arguments.ts";
import { UsageError } from "./usage-error.ts";

/** Usage of `xmd run`. */
export const RUN_USAGE = `Usage: xmd run [options] <document.md[#Section/Sub]>

Runs a Markdown document on this machine: prose is printed, exec blocks run
with bash in the current directory, <File> reads and writes here.

Options:
  --props-<name>=<value>   set a prop (see xmd run <document> --help)
  --props=<json>           set props from a JSON object
  --answer <name>=<json>   answer <Elicit as="name"> without a prompt
  --journal=<file>         record every effect in a new JSON Lines journal
  --replay=<file>          replay a journal: reproduce a completed run without
                           running anything, or continue a truncated one
  --no-secret-detection    do not refuse journal events that look like secrets
  --help                   show this help, or a document's props

Examples:
  xmd run examples/greeting.md --props-name=Ada
  xmd run examples/release.md --props-version=1.4.0 --answer 'approval={"ok":true}'
  xmd run --journal=trace.jsonl examples/hello.md
  xmd run --replay=trace.jsonl examples/hello.md`;

/** Runs `xmd run` and returns the exit code. */
export async function runCommand(args: readonly string[], io: CommandIo): Promise<number> {
  const options = parseRunArguments(args);
  if (!options.document) {
    if (options.help) {
      io.stdout(RUN_USAGE + "\n");
      return 0;
    }
    throw new UsageError("Missing document: write xmd run <document.md>");
  }
  const program = await loadHostProgram(io.cwd, options.document, options.target);
  if (options.help) {
    io.stdout(documentHelp("xmd run [options]", options.document, options.target, program));
    return 0;
  }
  const props = resolveProps(program.root.props, {
    options: options.propOptions,
    propsJson: options.propsJson,
    env: io.env,
  });
  if (options.noSecretDetection) {
    io.stderr("xmd: warning: secret detection is off for this command\n");
  }
  const journalPath = options.journal ?? options.replay;
  using file = journalPath === undefined
    ? undefined
    : new JsonlStream(io.resolve(journalPath), journalPath);
  const history = file ? await file.readAll() : [];
  if (options.journal !== undefined && history.length > 0) {
    throw new UsageError(
      `Cannot start journal "${options.journal}": it already holds events. Continue it with --replay=${options.journal}, or choose a new file`,
    );
  }
  const stream: DurableStream = file ?? new MemoryStream();
  const gate = options.noSecretDetection || !file ? disabledSecretGate : createSecretGate();
  const journal = await Journal.open(stream, gate);
  if (options.replay !== undefined && journal.state === "empty") {
    const missing = await Deno.stat(io.resolve(options.replay)).then(
      () => false,
      (error) => error instanceof Deno.errors.NotFound,
    );
    throw new UsageError(
      missing
        ? `Cannot replay "${options.replay}": no such file. Check the path, or record a journal with --journal=${options.replay}`
        : `Cannot replay "${options.replay}": it holds no events. Start a journal with --journal=${options.replay}`,
    );
  }
  checkAnswers({
    program,
    props,
    answers: options.answers,
    interactive: io.interactive,
    history,
    typed: typedPositions(options.document, program),
  });
  // A journal that cannot be written is refused before anything runs.
  if (options.journal !== undefined) await file!.open();
  const completed = journal.state === "completed";
  const typed = typedLabel(typedPositions(options.document, program));
  // Prompts start on a line of their own, whatever the document printed last.
  const line = new TerminalLine();
  const outcome = await runProgram({
    program,
    props,
    providers: completed ? detachedProviders() : {
      fs: new HostFileSystem(io.cwd),
      shell: io.onExec
        ? observedShell(new HostShell(io.cwd), (position) => io.onExec!(typed(position)))
        : new HostShell(io.cwd),
      elicit: new TerminalElicit({
        answers: options.answers,
        interactive: io.interactive,
        stderr: line.follow(io.stderr),
        line,
      }),
    },
    journal,
    stdout: line.follow(io.stdout),
    stderr: line.follow(io.stderr),
    signal: io.signal,
  });
  switch (outcome.status) {
    case "completed":
      return 0;
    case "failed":
      io.stderr(`xmd: ${typedPositions(options.document, program)(outcome.error.message)}\n`);
      return 1;
    case "cancelled":
      io.stderr(
        journalPath === undefined
          ? "xmd: interrupted\n"
          : `xmd: interrupted. Continue with: ${replayCommand(journalPath, options)}\n`,
      );
      return 130;
    case "suspended":
      throw new Error("The terminal prompt never suspends a run; this is a bug in xmd");
  }
}

/**
 * The command that continues an interrupted journal, with the paths as the
 * user typed them. Props and answers are named, never echoed: a value may be
 * a secret the journal never held.
 */
function replayCommand(journal: string, options: RunArguments): string {
  const document = options.target === undefined
    ? options.document!
    : `${options.document}#${options.target}`;
  const again = [
    ...(options.propsJson === undefined ? [] : ["--props"]),
    ...[...options.propOptions.keys()].map((name) => `--${name}`),
    ...[...options.answers.keys()].map((name) => `--answer ${name}=…`),
  ];
  return `xmd run ${shellWord(`--replay=${journal}`)} ${shellWord(document)}${
    again.length === 0 ? "" : ` (pass ${again.join(", ")} again)`
  }`;
}

/** `word` as a POSIX shell reads it back: bare when safe, else single-quoted. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_\/.,:@%+=#-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** Providers for a completed replay: none may be called, and none is. */
function detachedProviders() {
  const refuse = () =>
    Promise.reject(new Error("A completed replay attaches no provider; this is a bug in xmd"));
  return {
    fs: { readText: refuse, writeText: refuse, glob: refuse },
    shell: { run: refuse },
    elicit: { ask: refuse },
  };
}
