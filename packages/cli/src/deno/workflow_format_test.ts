import assert from "node:assert/strict";
import type { RunHistory, RunInspection, RunRecord } from "@xmd/workflow";
import {
  describeStop,
  formatHistory,
  formatList,
  formatStatus,
  formatStatusMarkdown,
  inspectionJson,
  relativeTime,
} from "./workflow-format.ts";
import { formatDiff } from "./diff-format.ts";

const NOW = Date.UTC(2030, 0, 15, 12, 0, 0);
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

function record(overrides: Partial<RunRecord> = {}): RunRecord {
  return {
    id: "deploy-1",
    document: "approval.md",
    target: null,
    definitionHash: "a".repeat(64),
    propsHash: "b".repeat(64),
    status: "completed",
    stopReason: null,
    createdAt: NOW - 3 * HOUR,
    updatedAt: NOW - 5 * MINUTE,
    eventCount: 4,
    root: "c".repeat(64),
    ...overrides,
  };
}

function inspection(overrides: Partial<RunRecord> = {}): RunInspection {
  return { record: record(overrides), pendingSuspension: null, executions: [] };
}

/** The start column of each header cell, checked against every row. */
function assertAligned(text: string): void {
  const lines = text.trimEnd().split("\n");
  const starts = [...lines[0].matchAll(/\S+/g)].map((match) => match.index!);
  for (const line of lines.slice(1)) {
    for (const start of starts.slice(1)) {
      assert.equal(
        line[start - 1],
        " ",
        `no gap before column ${start} in ${JSON.stringify(line)}`,
      );
      assert.notEqual(line[start], " ", `column ${start} is misaligned in ${JSON.stringify(line)}`);
    }
    assert.equal(line, line.trimEnd(), "a line ends with spaces");
  }
}

Deno.test("relativeTime reads as a person would say it, at each boundary", () => {
  const cases: [number, string][] = [
    [0, "just now"],
    [1499, "just now"],
    [2 * SECOND, "2s ago"],
    [59 * SECOND, "59s ago"],
    [60 * SECOND, "1min ago"],
    [59 * MINUTE + 59 * SECOND, "59min ago"],
    [HOUR, "1h ago"],
    [47 * HOUR + 59 * MINUTE, "47h ago"],
    [48 * HOUR, "2d ago"],
    [400 * DAY, "400d ago"],
  ];
  for (const [ago, expected] of cases) {
    assert.equal(relativeTime(NOW - ago, NOW), expected, `${ago} ms ago`);
  }
});

Deno.test("relativeTime reads a time ahead of the clock (another machine's skew) as just now", () => {
  assert.equal(relativeTime(NOW + 5 * MINUTE, NOW), "just now");
});

Deno.test("describeStop names every stop reason in words, never as a bare code", () => {
  assert.equal(describeStop(null), "-");
  assert.equal(describeStop({ kind: "journal", eventId: 7 }), "at event 7");
  const words = {
    interrupted: "interrupted (Ctrl-C)",
    crashed: "its executor stopped unexpectedly",
    cancelled: "cancelled by xmd workflow cancel",
    divergence: "its journal no longer matches its definition",
    secret_detected: "the secret gate refused what an effect produced; nothing of it was kept",
    storage_failure: "its storage failed",
  } as const;
  for (const [code, text] of Object.entries(words)) {
    assert.equal(describeStop({ kind: "host", code: code as keyof typeof words }), text);
  }
});

Deno.test("formatStatus aligns its fields and shows the pending question with the command to answer it", () => {
  const text = formatStatus(
    {
      record: record({
        id: "r7",
        status: "suspended",
        target: "Release/Publish",
        stopReason: { kind: "journal", eventId: 2 },
        eventCount: 2,
        updatedAt: NOW - 30 * SECOND,
      }),
      pendingSuspension: {
        suspensionId: "approval-2",
        question: "Ship it?",
        schema: { type: "boolean" },
        answered: false,
      },
      executions: [{ seq: 1, kind: "start", startedAt: NOW - HOUR, endedAt: NOW, outcome: null }],
    },
    NOW,
  );
  assert.equal(
    text,
    [
      "run         r7",
      "status      suspended",
      "document    approval.md#Release/Publish",
      "frontier    2 events committed",
      `root        ${"c".repeat(64)}`,
      "stopped     at event 2",
      "created     3h ago",
      "updated     30s ago",
      "executions  1",
      "",
      "Waiting for an answer to approval-2:",
      "  question  Ship it?",
      '  schema    {"type":"boolean"}',
      "  answer with: xmd workflow answer r7 approval-2 '<json>'",
      "",
    ].join("\n"),
  );
});

Deno.test("formatStatus of an answered question says to resume, and counts one event in the singular", () => {
  const text = formatStatus(
    {
      record: record({ status: "suspended", eventCount: 1 }),
      pendingSuspension: { suspensionId: "ok-1", question: "Go?", schema: {}, answered: true },
      executions: [],
    },
    NOW,
  );
  assert.match(text, /^frontier {4}1 event committed$/m);
  assert.match(text, /^ {2}answered; continue with: xmd workflow resume deploy-1$/m);
  assert.doesNotMatch(text, /answer with/);
});

Deno.test("formatStatus of a running run says how to continue it if no process executes it any more, in text and in Markdown", () => {
  const running = inspection({ status: "running" });
  assert.match(
    formatStatus(running, NOW),
    /\n\nIf no xmd process is executing it \(one was killed or crashed\), continue the run with: xmd workflow resume deploy-1\n$/,
  );
  assert.match(
    formatStatusMarkdown(running, "deploy-1"),
    /\n\nIf no xmd process is executing it \(one was killed or crashed\), continue the run with:\n\n```sh\nxmd workflow resume deploy-1\n```\n$/,
  );
  // Where the executor lock was probed (WF-28): a live executor, or one killed before it settled.
  const live = { ...running, executing: true };
  assert.match(formatStatus(live, NOW), /\n\nAn xmd process is executing it now\.\n$/);
  assert.match(
    formatStatusMarkdown(live, "deploy-1"),
    /\n\nAn xmd process is executing it now\.\n$/,
  );
  assert.doesNotMatch(formatStatus(live, NOW) + formatStatusMarkdown(live, "deploy-1"), /resume/);
  const stale = { ...running, executing: false };
  const killed =
    "No xmd process is executing it: its executor was killed or crashed before it settled the run. Continue the run with";
  assert.ok(formatStatus(stale, NOW).endsWith(`\n\n${killed}: xmd workflow resume deploy-1\n`));
  assert.ok(
    formatStatusMarkdown(stale, "deploy-1").endsWith(
      `\n\n${killed}:\n\n\`\`\`sh\nxmd workflow resume deploy-1\n\`\`\`\n`,
    ),
  );
  // A completed run says nothing more.
  const completed = inspection({ status: "completed" });
  assert.doesNotMatch(formatStatus(completed, NOW), /resume/);
  assert.doesNotMatch(formatStatusMarkdown(completed, "deploy-1"), /resume/);
});

Deno.test("formatList aligns runs of different widths under their headers", () => {
  const text = formatList(
    [
      inspection({ id: "a", status: "completed", eventCount: 12, updatedAt: NOW - 3 * DAY }),
      inspection({
        id: "a-much-longer-run-id",
        status: "suspended",
        document: "x.md",
        target: "Only/This",
        eventCount: 2,
        updatedAt: NOW,
      }),
    ],
    NOW,
  );
  assert.equal(
    text,
    [
      "RUN                   STATUS     DOCUMENT        EVENTS  UPDATED",
      "a                     completed  approval.md     12      3d ago",
      "a-much-longer-run-id  suspended  x.md#Only/This  2       just now",
      "",
    ].join("\n"),
  );
  assertAligned(text);
});

Deno.test("formatList says so when there are no runs", () => {
  assert.equal(formatList([], NOW), "No workflow runs.\n");
});

Deno.test("formatHistory lists every event with its time, coroutine, kind, position, result and root", () => {
  const history: RunHistory = {
    ...inspection({ status: "failed", stopReason: { kind: "journal", eventId: 4 } }),
    events: [
      {
        id: 1,
        at: NOW - 2 * HOUR,
        root: "0".repeat(64),
        event: {
          type: "yield",
          coroutineId: "root",
          description: { type: "props", name: "props approval.md" },
          result: { status: "ok", value: null },
        },
      },
      {
        id: 2,
        at: NOW - 90 * SECOND,
        root: "0".repeat(64),
        event: {
          type: "yield",
          coroutineId: "root.0",
          description: { type: "suspension_request", name: "Elicit Ask.md:3:1" },
          result: { status: "ok", value: null },
        },
      },
      {
        id: 3,
        at: NOW - 5 * SECOND,
        root: "1a2b3c4d5e6f".padEnd(64, "7"),
        event: { type: "close", coroutineId: "root.0", result: { status: "cancelled" } },
      },
      {
        id: 4,
        at: NOW,
        root: "1a2b3c4d5e6f".padEnd(64, "7"),
        event: {
          type: "close",
          coroutineId: "root",
          result: { status: "err", error: { name: "DocumentError", message: "boom" } },
        },
      },
    ],
  };
  const text = formatHistory(history, NOW);
  const [status, events] = text.split("\n\n");
  assert.equal(status + "\n", formatStatus(history, NOW));
  assert.equal(
    events,
    [
      "EVENT  WHEN      COROUTINE  KIND                WHERE              RESULT             ROOT",
      "1      2h ago    root       props               props approval.md  ok                 000000000000",
      "2      1min ago  root.0     suspension_request  Elicit Ask.md:3:1  ok                 000000000000",
      "3      5s ago    root.0     close               -                  cancelled          1a2b3c4d5e6f",
      "4      just now  root       close               -                  err DocumentError  1a2b3c4d5e6f",
      "",
    ].join("\n"),
  );
  assert.doesNotMatch(text, /boom/, "history echoed an error message");
});

Deno.test("formatHistory of a run with no events says so", () => {
  const text = formatHistory({ ...inspection({ eventCount: 0 }), events: [] }, NOW);
  assert.match(text, /^frontier {4}0 events committed$/m);
  assert.ok(text.endsWith("\nNo events yet.\n"));
});

Deno.test("inspectionJson carries the record, the pending question and the executions", () => {
  const value = inspectionJson({
    record: record({ status: "suspended" }),
    pendingSuspension: { suspensionId: "ok-2", question: "Go?", schema: true, answered: false },
    executions: [{ seq: 1, kind: "start", startedAt: 1, endedAt: 2, outcome: "suspended" }],
  });
  assert.deepEqual(value, {
    ...record({ status: "suspended" }),
    pendingSuspension: { suspensionId: "ok-2", question: "Go?", schema: true, answered: false },
    executions: [{ seq: 1, kind: "start", startedAt: 1, endedAt: 2, outcome: "suspended" }],
  });
});

Deno.test("formatDiff marks each path A, D or M, one per line, sorted by path across the three", () => {
  const root = (c: string) => c.repeat(64);
  const text = formatDiff({
    from: { event: 2, root: root("a") },
    to: { event: 5, root: root("b") },
    added: ["release/PUBLISHED", "z"],
    removed: ["release/old", "a-b"],
    changed: ["release/VERSION", "\u{1F600}", "\uFFFD"],
  });
  assert.equal(
    text,
    [
      "D a-b",
      "A release/PUBLISHED",
      "M release/VERSION",
      "D release/old",
      "A z",
      "M \uFFFD",
      "M \u{1F600}",
      "",
    ].join("\n"),
    "UTF-8 byte order puts U+FFFD before U+1F600, unlike UTF-16 order",
  );
  const same = { event: 3, root: root("a") };
  assert.equal(formatDiff({ from: same, to: same, added: [], removed: [], changed: [] }), "");
});
