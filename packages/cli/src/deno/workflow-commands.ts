/**
 * The `xmd workflow` subcommands as declarations: their synopsis, options and
 * examples, from which both the parser and each command's `--help` are made.
 *
 * @module
 */
import type { CommandSpec } from "./command-line.ts";

const JSON_OPTION = { name: "json", description: "print JSON instead of a table" } as const;
const NO_SECRET_DETECTION = {
  name: "no-secret-detection",
  description: "turn the secret gate off for this command",
} as const;

const REMOTE = {
  name: "remote",
  value: "<url>",
  description: "run on the remote host at <url> (default: XMD_WORKFLOW_REMOTE)",
} as const;
const ISSUE = {
  name: "issue",
  value: "<owner/repo#n>",
  description: "with --remote: the issue whose run it is, in place of <run-id> (or its node id)",
} as const;

/** Every subcommand, by name. */
export const WORKFLOW_COMMANDS: Readonly<Record<string, CommandSpec>> = {
  start: {
    command: "xmd workflow start",
    summary: "Start a workflow run of a document (or address the run --id names).",
    positionals: ["<document.md[#Section/Sub]>"],
    options: [
      { name: "id", value: "<run-id>", description: "the run's id (default: 12 random hex)" },
      { name: "props", value: "<json>", description: "props as one JSON object" },
      {
        name: "props-<name>",
        value: "<value>",
        description: "one prop (xmd workflow start doc.md --help lists them)",
      },
      NO_SECRET_DETECTION,
      REMOTE,
      ISSUE,
    ],
    details:
      "Exit codes: 0 completed, 1 failed or refused, 2 suspended (waiting for an answer),\n3 cancelled, 130 interrupted (resume it), 75 the remote host's connection was lost\n(run the same command again). With --remote the run is the issue's (--id is refused).",
    examples: [
      "xmd workflow start --id release-1.4.0 --props-release 1.4.0 examples/approval.md",
      "xmd workflow start --remote https://xmd.example.workers.dev --issue octo/app#12 release.md",
    ],
  },
  resume: {
    command: "xmd workflow resume",
    summary: "Continue a suspended or interrupted run; replay a completed one.",
    positionals: ["<run-id>"],
    options: [NO_SECRET_DETECTION, REMOTE, ISSUE],
    details: "resume runs the sources retained at start; it reads nothing from the working tree.",
    examples: ["xmd workflow resume release-1.4.0"],
  },
  answer: {
    command: "xmd workflow answer",
    summary: "Answer a suspended run's question (checked against its schema), to resume later.",
    positionals: ["<run-id>", "<suspension-id|name>", "[<json>|-]"],
    options: [
      { name: "file", value: "<path>", description: "read the answer (JSON) from this file" },
      {
        name: "text",
        value: "<value>",
        description: "the answer is this string (a question whose schema's type is string)",
      },
      NO_SECRET_DETECTION,
      REMOTE,
      ISSUE,
    ],
    details: "The answer is JSON: an argument, - to read it from standard input, or --file. The\n" +
      "question is its suspension id, or its as name when the run waits on that question.",
    examples: [
      `xmd workflow answer release-1.4.0 decision-2 '{"approve":true}'`,
      `echo '{"approve":true}' | xmd workflow answer release-1.4.0 decision -`,
      "xmd workflow answer release-1.4.0 note --text 'Ship it on Monday'",
    ],
  },
  status: {
    command: "xmd workflow status",
    summary: "Show a run: its status, frontier and, when suspended, its question.",
    positionals: ["<run-id>"],
    options: [
      JSON_OPTION,
      {
        name: "format",
        value: "<text|json|markdown>",
        description: "markdown: the status and question for a job summary",
      },
      REMOTE,
      ISSUE,
    ],
    examples: [
      "xmd workflow status release-1.4.0",
      "xmd workflow status release-1.4.0 --json",
      'xmd workflow status release-1.4.0 --format markdown >> "$GITHUB_STEP_SUMMARY"',
    ],
  },
  list: {
    command: "xmd workflow list",
    summary: "List every run, newest first.",
    positionals: [],
    options: [
      {
        name: "status",
        value: "<status>",
        description: "only runs in this status (running, suspended, interrupted, …)",
      },
      JSON_OPTION,
      REMOTE,
      ISSUE,
    ],
    details: "With --remote, list shows the issue's run (a remote run is found by its issue).",
    examples: ["xmd workflow list", "xmd workflow list --status suspended"],
  },
  history: {
    command: "xmd workflow history",
    summary: "Show a run and its committed journal, each event with its Workspace root.",
    positionals: ["<run-id>"],
    options: [JSON_OPTION, REMOTE, ISSUE],
    examples: ["xmd workflow history release-1.4.0"],
  },
  export: {
    command: "xmd workflow export",
    summary: "Write a run's Workspace (now, or after an event) into a new or empty directory.",
    positionals: ["<run-id>", "<directory>"],
    options: [
      { name: "at", value: "<event-id>", description: "the root after this event" },
      {
        name: "preserve-modes",
        description: "keep set-uid, set-gid and sticky bits and ignore the umask",
      },
      REMOTE,
      ISSUE,
    ],
    details:
      "Files keep their permission bits (less set-uid, set-gid and sticky, through your umask),\nsymlinks their targets verbatim, hard links are recreated from the live Workspace; an\nexport that fails leaves nothing behind.",
    examples: ["xmd workflow export release-1.4.0 ./out", "xmd workflow export rel ./v1 --at 3"],
  },
  diff: {
    command: "xmd workflow diff",
    summary: "List the paths added (A), removed (D) and changed (M) between two events' roots.",
    positionals: ["<run-id>", "<event-a>", "<event-b>"],
    options: [JSON_OPTION, REMOTE, ISSUE],
    examples: ["xmd workflow diff release-1.4.0 2 6"],
  },
  cancel: {
    command: "xmd workflow cancel",
    summary: "End a suspended or interrupted run for good.",
    positionals: ["<run-id>"],
    options: [REMOTE, ISSUE],
    examples: ["xmd workflow cancel release-1.5.0"],
  },
  delete: {
    command: "xmd workflow delete",
    summary: "Remove a run's files (refused while it runs); a remote issue's run, to start anew.",
    positionals: ["<run-id>"],
    options: [REMOTE, ISSUE],
    examples: ["xmd workflow delete release-1.5.0"],
  },
};
