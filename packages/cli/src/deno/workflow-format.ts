/**
 * How `status`, `list` and `history` read: aligned columns, relative times,
 * the frontier and the stop reason in words. `--json` carries the same data.
 *
 * @module
 */
import type { JournalEvent } from "@xmd/core";
import type { HistoryEvent, RunHistory, RunInspection, StopReason } from "@xmd/workflow";

/** A time relative to `now`: "just now", "5s ago", "3min ago", "2h ago", "4d ago". */
export function relativeTime(at: number, now: number): string {
  const seconds = Math.max(0, Math.round((now - at) / 1000));
  if (seconds < 2) return "just now";
  if (seconds < 60) return `${seconds}s ago`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h ago`;
  return `${Math.floor(hours / 24)}d ago`;
}

/** A stop reason in words. */
export function describeStop(reason: StopReason | null): string {
  if (reason === null) return "-";
  if (reason.kind === "journal") return `at event ${reason.eventId}`;
  switch (reason.code) {
    case "interrupted":
      return "interrupted (Ctrl-C)";
    case "crashed":
      return "its executor stopped unexpectedly";
    case "cancelled":
      return "cancelled by xmd workflow cancel";
    case "divergence":
      return "its journal no longer matches its definition";
    case "secret_detected":
      return "the secret gate refused what an effect produced; nothing of it was kept";
    case "storage_failure":
      return "its storage failed";
  }
}

/** The JSON form of an inspection (what `--json` prints). */
export function inspectionJson(inspection: RunInspection) {
  return {
    ...inspection.record,
    pendingSuspension: inspection.pendingSuspension,
    executions: inspection.executions,
    ...(inspection.executing === undefined ? {} : { executing: inspection.executing }),
  };
}

function table(rows: string[][]): string {
  // A loop, not `Math.max(...column)`: a long history has more rows than a call takes arguments.
  const widths = rows[0].map(() => 0);
  for (const row of rows) {
    for (let column = 0; column < row.length; column++) {
      if (row[column].length > widths[column]) widths[column] = row[column].length;
    }
  }
  return rows.map((row) =>
    row.map((cell, column) => column === row.length - 1 ? cell : cell.padEnd(widths[column]))
      .join("  ").trimEnd()
  ).join("\n") + "\n";
}

/** `xmd workflow status`. */
export function formatStatus(
  inspection: RunInspection,
  now: number,
  name: string = inspection.record.id,
): string {
  const { record, pendingSuspension, executions } = inspection;
  const rows = [
    ["run", record.id],
    ["status", record.status],
    ["document", record.document + (record.target ? `#${record.target}` : "")],
    ["frontier", `${record.eventCount} event${record.eventCount === 1 ? "" : "s"} committed`],
    ["root", record.root],
    ["stopped", describeStop(record.stopReason)],
    ["created", relativeTime(record.createdAt, now)],
    ["updated", relativeTime(record.updatedAt, now)],
    ["executions", String(executions.length)],
  ];
  let text = table(rows);
  if (pendingSuspension) {
    text += `\nWaiting for an answer to ${pendingSuspension.suspensionId}:\n` +
      `  question  ${pendingSuspension.question}\n` +
      `  schema    ${JSON.stringify(pendingSuspension.schema)}\n` +
      (pendingSuspension.answered
        ? `  answered; continue with: xmd workflow resume ${name}\n`
        : `  answer with: xmd workflow answer ${name} ${pendingSuspension.suspensionId} '<json>'\n`);
  }
  if (record.status === "interrupted") {
    text += `\nContinue the run with: xmd workflow resume ${name}\n`;
  } else if (record.status === "running") {
    text += inspection.executing
      ? `\n${EXECUTING}\n`
      : `\n${runningHint(inspection)}: xmd workflow resume ${name}\n`;
  }
  return text;
}

/** What the status of a `running` run that a process executes adds. */
const EXECUTING = "An xmd process is executing it now.";

/**
 * What the status of a `running` run that no process may execute adds before
 * the command that continues it: a run whose executor was killed (SIGKILL, a
 * crash, a power loss) before it settled the run stays `running`. Where the
 * host cannot tell (`executing` unknown), `resume` tells them apart safely
 * (it is refused while another process executes the run, and recovers a
 * stale one).
 */
function runningHint(inspection: RunInspection): string {
  return inspection.executing === false
    ? "No xmd process is executing it: its executor was killed or crashed before it settled the run. Continue the run with"
    : "If no xmd process is executing it (one was killed or crashed), continue the run with";
}

/**
 * `xmd workflow status --format=markdown`: the run's status and, when it
 * waits for an answer, the question, its schema and the command that
 * answers it, for a CI job's summary (`$GITHUB_STEP_SUMMARY`). The question
 * is quoted line by line, the schema and the command are code blocks.
 */
export function formatStatusMarkdown(inspection: RunInspection, name: string): string {
  const { record, pendingSuspension } = inspection;
  let text = `### xmd workflow run \`${record.id}\`: ${record.status}\n\n` +
    `${record.eventCount} event${record.eventCount === 1 ? "" : "s"} committed; stopped: ${
      describeStop(record.stopReason)
    }.\n`;
  if (pendingSuspension) {
    const question = pendingSuspension.question.split("\n").map((line) => `> ${line}`.trimEnd());
    text += `\nWaiting for an answer to \`${pendingSuspension.suspensionId}\`:\n\n` +
      `${question.join("\n")}\n\nAnswer schema:\n\n` +
      "```json\n" + JSON.stringify(pendingSuspension.schema, null, 2) + "\n```\n\n" +
      (pendingSuspension.answered
        ? `Answered; continue with:\n\n\`\`\`sh\nxmd workflow resume ${name}\n\`\`\`\n`
        : `Answer with:\n\n\`\`\`sh\nxmd workflow answer ${name} ${pendingSuspension.suspensionId} '<json>'\n\`\`\`\n`);
  } else if (record.status === "interrupted") {
    text += `\nContinue the run with:\n\n\`\`\`sh\nxmd workflow resume ${name}\n\`\`\`\n`;
  } else if (record.status === "running") {
    text += inspection.executing
      ? `\n${EXECUTING}\n`
      : `\n${runningHint(inspection)}:\n\n\`\`\`sh\nxmd workflow resume ${name}\n\`\`\`\n`;
  }
  return text;
}

/** `xmd workflow list`. */
export function formatList(runs: RunInspection[], now: number): string {
  if (runs.length === 0) return "No workflow runs.\n";
  return table([
    ["RUN", "STATUS", "DOCUMENT", "EVENTS", "UPDATED"],
    ...runs.map(({ record, executing }) => [
      record.id,
      // A `running` run no process executes: its executor was killed or crashed.
      executing === false ? `${record.status} (stale)` : record.status,
      record.document + (record.target ? `#${record.target}` : ""),
      String(record.eventCount),
      relativeTime(record.updatedAt, now),
    ]),
  ]);
}

function eventSummary(event: JournalEvent): [string, string, string, string] {
  const result = event.result.status === "err"
    ? `err ${event.result.error.name}`
    : event.result.status;
  if (event.type === "close") return [event.coroutineId, "close", "-", result];
  return [event.coroutineId, event.description.type, event.description.name, result];
}

/** One event's row of `xmd workflow history`: id, time, coroutine, kind, position, result, root. */
export function historyRow(entry: HistoryEvent, now: number): string[] {
  return [
    String(entry.id),
    relativeTime(entry.at, now),
    ...eventSummary(entry.event),
    entry.root.slice(0, 12),
  ];
}

/** `xmd workflow history` from the rows {@linkcode historyRow} made, in order. */
export function formatHistoryRows(
  inspection: RunInspection,
  rows: string[][],
  now: number,
  name: string = inspection.record.id,
): string {
  const header = formatStatus(inspection, now, name);
  if (rows.length === 0) return header + "\nNo events yet.\n";
  return header + "\n" +
    table([["EVENT", "WHEN", "COROUTINE", "KIND", "WHERE", "RESULT", "ROOT"], ...rows]);
}

/** `xmd workflow history`. */
export function formatHistory(
  history: RunHistory,
  now: number,
  name: string = history.record.id,
): string {
  return formatHistoryRows(
    history,
    history.events.map((entry) => historyRow(entry, now)),
    now,
    name,
  );
}
