/**
 * The runner (`RemoteWorkflowHost`) against the `WorkflowRun` Durable Object
 * in real workerd (with `XMD_TEST_REMOTE_BACKEND=loopback`, the run server
 * over node:sqlite behind a loopback WebSocket), through a loopback proxy
 * that can drop a connection; each runner a real process, crashes real
 * SIGKILLs. workerd itself killed: `remote_workerd_kill_test.ts`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { loadProgramFile } from "@xmd/core/deno";
import { fileURLToPath } from "node:url";
import { type JournalEvent, XmdError } from "@xmd/core";
import type { ExecutionIo, ExportReport, WorkflowHost } from "../contracts/workflow-host.ts";
import { RunNotFoundError } from "../contracts/workflow-errors.ts";
import { RemoteUnsupportedError } from "../remote/remote-refusal.ts";
import { type RunBackend, TestRemoteServer } from "./_test-remote-server.ts";
import { RemoteWorkerd } from "../cloudflare/_test-remote-workerd.ts";
import { TESTDATA } from "./_test-workflow-cli.ts";
import { ExecutorLock } from "./executor-lock.ts";
import { LocalWorkflowHost } from "./local-workflow-host.ts";
import { RemoteConnection } from "./remote-connection.ts";
import { RemoteWorkflowHost } from "./remote-workflow-host.ts";

/**
 * The endpoint runners connect to: a proxy in front of the `WorkflowRun`
 * Durable Object in workerd (`XMD_TEST_REMOTE_BACKEND=loopback`: in front of
 * the run server over node:sqlite instead).
 */
async function startServer(): Promise<TestRemoteServer> {
  if (Deno.env.get("XMD_TEST_REMOTE_BACKEND") === "loopback") return await TestRemoteServer.start();
  const workerd = await RemoteWorkerd.start();
  const backend: RunBackend = {
    url: (id) => `${workerd.base}?run=${encodeURIComponent(id)}`,
    dump: (id) => workerd.dump(id),
    [Symbol.asyncDispose]: () => workerd[Symbol.asyncDispose](),
  };
  return await TestRemoteServer.start(backend);
}

const DOCUMENT = "ok.workspace-effects.md";
const RUN = "remote-run";
const ANSWER = { ok: true };
const RUNNER = fileURLToPath(new URL("./_test-remote-runner.ts", import.meta.url));
const CONFIG = fileURLToPath(new URL("../../../../deno.json", import.meta.url));
const LOCK = fileURLToPath(new URL("../../../../dev.lock", import.meta.url));

/** What one runner process did. */
interface Outcome {
  code: number;
  signal: Deno.Signal | null;
  stdout: string;
  stderr: string;
}

/** Runs one runner process: `start`, `resume` or `answer` against `server`. */
async function runner(
  server: TestRemoteServer,
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<Outcome> {
  return await outcomeOf(spawnRunner(server, args, env));
}

function spawnRunner(
  server: TestRemoteServer,
  args: readonly string[],
  env: Record<string, string> = {},
): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--quiet",
      `--config=${CONFIG}`,
      `--lock=${LOCK}`,
      RUNNER,
      server.base,
      ...args,
    ],
    env: { NO_COLOR: "1", ...env },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

async function outcomeOf(child: Deno.ChildProcess): Promise<Outcome> {
  const output = await child.output();
  return {
    code: output.code,
    signal: output.signal,
    stdout: new TextDecoder().decode(output.stdout),
    stderr: new TextDecoder().decode(output.stderr),
  };
}

const START = ["start", DOCUMENT, RUN, TESTDATA];

function assertExit(outcome: Outcome, code: number): void {
  assert.equal(outcome.signal, null, outcome.stderr);
  assert.equal(outcome.code, code, outcome.stderr);
}

/** A committed event and the root after it. */
interface RootedEvent {
  root: string;
  event: JournalEvent;
}

/** The local host's uninterrupted run of the fixture: its outputs and journal. */
interface Reference {
  suspensionId: string;
  started: string;
  resumed: string;
  events: RootedEvent[];
}

let reference: Promise<Reference> | undefined;

function localReference(): Promise<Reference> {
  reference ??= (async () => {
    const runs = await Deno.makeTempDir({ prefix: "xmd-remote-reference-" });
    try {
      const host = new LocalWorkflowHost(runs);
      const program = await loadProgramFile(DOCUMENT, { cwd: TESTDATA });
      const started = capture();
      const first = await host.start({ id: RUN, program, props: {} }, started.io);
      const suspensionId = first.pendingSuspension!.suspensionId;
      await host.answer(RUN, suspensionId, ANSWER, true);
      const resumed = capture();
      assert.equal((await host.resume(RUN, resumed.io)).status, "completed");
      const events = (await host.history(RUN)).events.map(({ root, event }) => ({ root, event }));
      return { suspensionId, started: started.text(), resumed: resumed.text(), events };
    } finally {
      await Deno.remove(runs, { recursive: true });
    }
  })();
  return reference;
}

function capture(): { io: ExecutionIo; text(): string } {
  let out = "";
  return {
    io: {
      stdout: (text) => out += text,
      stderr: () => {},
      onRun: () => {},
      signal: new AbortController().signal,
    },
    text: () => out,
  };
}

function remoteHost(server: TestRemoteServer): RemoteWorkflowHost {
  return new RemoteWorkflowHost({ url: (id) => server.urlOf(id) });
}

async function rootedEvents(server: TestRemoteServer): Promise<RootedEvent[]> {
  const history = await remoteHost(server).history(RUN);
  return history.events.map(({ root, event }) => ({ root, event }));
}

/**
 * Continues the run until it completes: the first resume in a fresh runner
 * process (the next runner after a crash), answers and later resumes in this
 * process (each a fresh host and working copy). Returns the last resume's output.
 */
async function finish(server: TestRemoteServer): Promise<string> {
  let last = "";
  let processes = 0;
  for (let step = 0; step < 6; step++) {
    const host = remoteHost(server);
    const history = await host.history(RUN);
    const { status } = history.record;
    if (status === "completed") return last;
    const pending = history.pendingSuspension;
    if (status === "suspended" && pending && !pending.answered) {
      await host.answer(RUN, pending.suspensionId, ANSWER, true);
      continue;
    }
    if (processes++ === 0) {
      const outcome = await runner(server, ["resume", RUN]);
      assert.equal(outcome.signal, null, outcome.stderr);
      assert.ok(outcome.code === 0 || outcome.code === 2, outcome.stderr);
      last = outcome.stdout;
    } else {
      const output = capture();
      await host.resume(RUN, output.io);
      last = output.text();
    }
  }
  throw new Error("the run did not complete");
}

Deno.test("RM-40 a document with <File>, shell blocks and an answer runs remotely; fresh runner processes continue it; its journal and roots equal a local run's event by event", async () => {
  const expected = await localReference();
  await using server = await startServer();
  const started = await runner(server, START);
  assertExit(started, 2);
  assert.equal(started.stdout, expected.started);
  const suspended = await remoteHost(server).inspect(RUN);
  assert.equal(suspended.record.status, "suspended");
  assert.equal(suspended.pendingSuspension?.suspensionId, expected.suspensionId);
  assertExit(
    await runner(server, ["answer", RUN, expected.suspensionId, JSON.stringify(ANSWER)]),
    0,
  );
  const resumed = await runner(server, ["resume", RUN]);
  assertExit(resumed, 0);
  assert.equal(resumed.stdout, expected.resumed);
  assert.deepEqual(await rootedEvents(server), expected.events);
  const history = await remoteHost(server).history(RUN);
  assert.equal(history.record.status, "completed");
  assert.deepEqual(history.executions.map((e) => [e.kind, e.outcome]), [
    ["start", "suspended"],
    ["resume", "completed"],
  ]);
});

Deno.test("RM-41 a completed run replays from the record and journal on a reader connection: no acquisition, nothing changed", async () => {
  const expected = await localReference();
  await using server = await startServer();
  assertExit(await runner(server, START), 2);
  await finish(server);
  const before = { dump: await server.dump(RUN), epoch: await server.epoch(RUN), ...server.hellos };
  const replayed = await runner(server, ["resume", RUN]);
  assertExit(replayed, 0);
  assert.equal(replayed.stdout, expected.resumed);
  assert.equal(await server.dump(RUN), before.dump);
  assert.equal(await server.epoch(RUN), before.epoch);
  assert.equal(server.hellos.executor, before.executor);
});

/** Kill points: the command killed, the failpoint, and the event its commit adds (or settles after). */
const KILLS = [
  ["start", "create", 1, 0],
  ["resume", "begin-execution", 1, 6],
  ["start", "append", 1, 1], // the props
  ["start", "workspace-effect", 1, 2], // the first <File>
  ["start", "workspace-effect", 3, 4], // the shell block that writes three files
  ["start", "append", 2, 5], // the question
  ["start", "settle", 1, 5], // suspended
  ["resume", "consume-answer", 1, 6],
  ["resume", "workspace-effect", 2, 8], // the shell block that appends and removes
  ["resume", "settle", 1, 11], // completed
] as const;

for (const [command, point, nth, event] of KILLS) {
  const lifecycle = point === "create" || point === "begin-execution";
  for (
    const phase of lifecycle ? ["sent", "acked"] as const : ["sent", "acked", "after"] as const
  ) {
    Deno.test(`RM-42 a runner SIGKILLed at ${point}:${phase}:${nth} of ${command} loses nothing acknowledged; the next runner continues to the reference's end`, async () => {
      const expected = await localReference();
      await using server = await startServer();
      const failpoint = { XMD_FAILPOINT: `${point}:${phase}:${nth}` };
      if (command === "resume") {
        assertExit(await runner(server, START), 2);
        const answer = JSON.stringify(ANSWER);
        assertExit(await runner(server, ["answer", RUN, expected.suspensionId, answer]), 0);
      }
      const killed = await runner(server, command === "start" ? START : ["resume", RUN], failpoint);
      assert.equal(killed.signal, "SIGKILL", killed.stderr);
      const events = await rootedEvents(server).catch((error) => {
        // A create in flight may not have landed: there is no run yet.
        if (point === "create" && phase === "sent" && error instanceof RunNotFoundError) return [];
        throw error;
      });
      // An acknowledged commit is kept; only a frame in flight (sent) may have landed or not.
      const settles = point === "settle";
      if (phase === "sent" && !settles && !lifecycle) {
        assert.ok([event - 1, event].includes(events.length));
      } else {assert.equal(
          events.length,
          lifecycle ? event - (command === "resume" ? 1 : 0) : event,
        );}
      assert.deepEqual(events, expected.events.slice(0, events.length));
      if (settles && phase !== "sent") {
        const { status } = (await remoteHost(server).inspect(RUN)).record;
        assert.equal(status, command === "start" ? "suspended" : "completed");
      }
      if (events.length === 0) assertExit(await runner(server, START), 2);
      await finish(server);
      assert.deepEqual(await rootedEvents(server), expected.events);
    });
  }
}

for (const when of ["before", "after"] as const) {
  Deno.test(`RM-43 a connection lost ${when} the Durable Object handles a commit exits 75 in one line; the copy is rolled back, the effect is not repeated, the next runner continues`, async () => {
    const expected = await localReference();
    await using server = await startServer();
    server.drop = { type: "commit", nth: 3, when };
    const lost = await runner(server, START);
    assertExit(lost, 75);
    const lines = lost.stderr.trim().split("\n");
    assert.equal(lines.length, 1, lost.stderr);
    assert.match(lines[0], /^xmd: Connection lost: /);
    const events = await rootedEvents(server);
    assert.equal(events.length, when === "before" ? 2 : 3);
    assert.deepEqual(events, expected.events.slice(0, events.length));
    await finish(server);
    assert.deepEqual(await rootedEvents(server), expected.events);
  });
}

Deno.test("RM-44 while a runner holds the run a second one is refused busy and changes nothing; the first goes on", async () => {
  const expected = await localReference();
  await using server = await startServer();
  const first = spawnRunner(server, START, { XMD_FAILPOINT: "workspace-effect:acked:2:stop" });
  // Wait until the first runner is frozen holding the run, its second effect (event 3) acknowledged.
  while ((await rootedEvents(server).catch(() => [])).length < 3) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const before = await server.dump(RUN);
  const second = await runner(server, ["resume", RUN]);
  assertExit(second, 1);
  assert.match(
    second.stderr,
    /^xmd: Cannot run "remote-run": it is already running in another process\. Wait for it, or stop it with Ctrl-C\n$/,
  );
  assert.equal(await server.dump(RUN), before);
  Deno.kill(first.pid, "SIGCONT");
  const outcome = await outcomeOf(first);
  assert.equal(outcome.code, 2, outcome.stderr);
  assert.equal(outcome.stdout, expected.started);
  await finish(server);
  assert.deepEqual(await rootedEvents(server), expected.events);
});

Deno.test("RM-45 export and diff from fetched objects equal the local host's; list and a missing run refuse by name", async () => {
  await using server = await startServer();
  assertExit(await runner(server, START), 2);
  await finish(server);
  const runs = await Deno.makeTempDir({ prefix: "xmd-remote-local-" });
  const out = await Deno.makeTempDir({ prefix: "xmd-remote-export-" });
  try {
    const local = new LocalWorkflowHost(runs);
    const program = await loadProgramFile(DOCUMENT, { cwd: TESTDATA });
    const first = await local.start({ id: RUN, program, props: {} }, capture().io);
    await local.answer(RUN, first.pendingSuspension!.suspensionId, ANSWER, true);
    await local.resume(RUN, capture().io);
    const remote = remoteHost(server);
    for (const at of [null, 3]) {
      const a = join(out, `remote-${at}`);
      const b = join(out, `local-${at}`);
      const exported = await remote.export(RUN, at, a);
      assert.deepEqual(exported, await local.export(RUN, at, b));
      assert.deepEqual(await tree(a), await tree(b));
    }
    assert.deepEqual(await remote.diff(RUN, 2, 9), await local.diff(RUN, 2, 9));
    await assert.rejects(remote.list(), RemoteUnsupportedError);
    await assert.rejects(remote.inspect("no-such-run"), RunNotFoundError);
  } finally {
    await Deno.remove(runs, { recursive: true });
    await Deno.remove(out, { recursive: true });
  }
});

async function tree(dir: string, prefix = ""): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(join(dir, prefix))) {
    const path = join(prefix, entry.name);
    if (entry.isDirectory) found.push(`${path}/`, ...await tree(dir, path));
    else found.push(`${path} ${await Deno.readTextFile(join(dir, path))}`);
  }
  return found.sort();
}

Deno.test("RM-46 a file over 1 MiB, a symlink, modes, a hard link and two answers round-trip through fresh working copies with the local run's roots and output", async () => {
  await using server = await startServer();
  const runs = await Deno.makeTempDir({ prefix: "xmd-remote-local-" });
  const out = await Deno.makeTempDir({ prefix: "xmd-remote-export-" });
  try {
    const program = await loadProgramFile("ok.remote-shapes.md", { cwd: TESTDATA });
    const local = new LocalWorkflowHost(runs);
    const remote = remoteHost(server);
    const results: {
      output: string;
      events: RootedEvent[];
      exported: ExportReport;
      tree: string[];
    }[] = [];
    for (const host of [local, remote] as WorkflowHost[]) {
      const output = capture();
      let report = await host.start({ id: RUN, program, props: {} }, output.io);
      let answers = 0;
      while (report.status === "suspended") {
        await host.answer(RUN, report.pendingSuspension!.suspensionId, `answer ${++answers}`, true);
        // Each resume of the remote run builds a new working copy from the Durable Object.
        report = await host.resume(RUN, output.io);
      }
      assert.equal(report.status, "completed");
      assert.equal(answers, 2);
      const history = await host.history(RUN);
      const exported = await host.export(RUN, null, join(out, `${results.length}`));
      results.push({
        output: output.text(),
        events: history.events.map(({ root, event }) => ({ root, event })),
        exported,
        tree: await tree(join(out, `${results.length}`)),
      });
    }
    const [a, b] = results;
    assert.deepEqual(b.events, a.events);
    assert.equal(b.output, a.output);
    assert.match(a.output, /answer 2/);
    assert.deepEqual(b.exported, a.exported);
    assert.equal(a.exported.hardLinks, 1);
    assert.equal(a.exported.symlinks, 1);
    assert.deepEqual(b.tree, a.tree);
    const big = (await Deno.stat(join(out, "1", "data", "big.txt"))).size;
    assert.ok(big > 1024 * 1024);
    assert.equal((await Deno.stat(join(out, "1", "bin", "tool"))).mode! & 0o777, 0o755);
  } finally {
    await Deno.remove(runs, { recursive: true });
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("RM-47 a commit sends only what the Durable Object lacks: a one-file change in 350 files sends the trees on its path (a large one as a delta), its file object and its chunk (in the commit frame)", async () => {
  await using server = await startServer();
  const program = await loadProgramFile("ok.remote-many.md", { cwd: TESTDATA });
  const report = await remoteHost(server).start({ id: RUN, program, props: {} }, capture().io);
  assert.equal(report.status, "completed");
  const commits = server.received.filter((frame) => frame.type === "commit");
  const chunks = server.received.filter((frame) => frame.type === "put-chunks");
  assert.equal(commits.length, 4); // props, the block, the <File>, the root Close
  // The block created 350 files (two of them with the same text: one chunk each text) and 5 trees.
  assert.equal(commits[1].objects, 350 + 5);
  // Its 350 chunks (one per file) are too many for the commit frame: they went ahead (RM-121).
  assert.equal(chunks.reduce((sum, frame) => sum + frame.chunks, 0), 350);
  assert.equal(commits[1].chunks, 0);
  // The <File>: the root tree, a, a/b, a/b/c, and the new file object; its one chunk in the frame.
  assert.equal(commits[2].objects, 5);
  assert.equal(commits[2].chunks, 1);
  // a/b/c (50 entries, one changed) goes as the delta publication stored, not its full text.
  assert.equal(commits[2].deltas, 1);
  assert.equal(commits[1].deltas, 0);
  assert.equal(commits[3].objects, 0);
  // A fresh runner acquiring the run fetches every object of the current root and nothing more.
  const history = await remoteHost(server).history(RUN);
  assert.equal(history.events.at(-1)?.root, history.record.root);
});

Deno.test("WS-112 RM-14: a directory's skip-deltas, each against an earlier tree than the last, land on the Durable Object as deltas", async () => {
  await using server = await startServer();
  const program = await loadProgramFile("ok.remote-skip-deltas.md", { cwd: TESTDATA });
  const report = await remoteHost(server).start({ id: RUN, program, props: {} }, capture().io);
  assert.equal(report.status, "completed");
  const commits = server.received.filter((frame) => frame.type === "commit");
  // Props, the first block, six <File>, the second block, five <File>, the root Close.
  assert.equal(commits.length, 15);
  // Each <File> and the removing block send d (61 to 66 entries) as the delta publication
  // stored: against the version with its lowest bit cleared (versions 2, 4 and 6 against 0, 8
  // against 0 after removals since), which the Durable Object holds and checks (RM-14).
  for (const commit of [...commits.slice(2, 9), ...commits.slice(9, 14)]) {
    assert.equal(commit.deltas, 1);
  }
  const history = await remoteHost(server).history(RUN);
  assert.equal(history.events.at(-1)?.root, history.record.root);
});

Deno.test("RM-48 an event over the remote row limit is refused before it is sent: the run stops failed (storage_failure), every earlier commit kept", async () => {
  await using server = await startServer();
  const program = await loadProgramFile("ok.remote-row-limit.md", { cwd: TESTDATA });
  const host = remoteHost(server);
  await assert.rejects(
    host.start({ id: RUN, program, props: {} }, capture().io),
    (error: Error) => {
      assert.match(
        error.message,
        /^Cannot store the event after event 2: it is over the 1835008-byte row limit$/,
      );
      return true;
    },
  );
  const history = await host.history(RUN);
  assert.equal(history.events.length, 2);
  assert.equal(history.record.status, "failed");
  assert.deepEqual(history.record.stopReason, { kind: "host", code: "storage_failure" });
  const commits = server.received.filter((frame) => frame.type === "commit");
  assert.ok(commits.every((frame) => frame.bytes < 1024 * 1024));
});

// Built by concatenation so this repository's own files do not trip secret scanners.
const TOKEN = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A";

function contains(haystack: Uint8Array, needle: Uint8Array): boolean {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

Deno.test("RM-49 the secret gate runs in the runner before any frame: a secret prop sends nothing; a secret an effect writes never leaves it and the run stops interrupted (secret_detected)", async () => {
  await using server = await startServer();
  const dir = await Deno.makeTempDir({ prefix: "xmd-remote-secret-" });
  try {
    await Deno.writeTextFile(
      join(dir, "secret.md"),
      [
        "# Secret",
        "",
        '<File path="a.txt">ok</File>',
        "",
        "```sh exec",
        `t="${TOKEN.slice(0, 4)}"`,
        `echo "push with \${t}${TOKEN.slice(4)}" > out.txt`,
        "```",
        "",
      ].join("\n"),
    );
    const program = await loadProgramFile("secret.md", { cwd: dir });
    const host = remoteHost(server);
    await assert.rejects(
      host.start({ id: RUN, program, props: { token: TOKEN } }, capture().io),
      /secret/i,
    );
    assert.equal(server.messages.length, 0);
    await assert.rejects(host.start({ id: RUN, program, props: {} }, capture().io), /secret/i);
    const history = await host.history(RUN);
    assert.equal(history.record.status, "interrupted");
    assert.deepEqual(history.record.stopReason, { kind: "host", code: "secret_detected" });
    assert.deepEqual(history.events.map((e) => e.event.type), ["yield", "yield"]);
    // The document holds the token in two halves; only the effect's output joins them.
    const needle = new TextEncoder().encode(TOKEN);
    assert.ok(server.messages.every((message) => !contains(message, needle)));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("RM-50 Ctrl-C during a shell block settles the remote run interrupted like the local one; resuming both ends with the same journal and roots", async () => {
  await using server = await startServer();
  const runs = await Deno.makeTempDir({ prefix: "xmd-remote-local-" });
  try {
    const program = await loadProgramFile("ok.workspace-sleep.md", { cwd: TESTDATA });
    const journals: RootedEvent[][] = [];
    const stops: unknown[] = [];
    for (const host of [new LocalWorkflowHost(runs), remoteHost(server)] as WorkflowHost[]) {
      const controller = new AbortController();
      const io: ExecutionIo = {
        ...capture().io,
        signal: controller.signal,
        onExec: () => {
          controller.abort();
          return () => {};
        },
      };
      const stopped = await host.start({ id: RUN, program, props: {} }, io);
      assert.equal(stopped.status, "interrupted");
      stops.push((await host.inspect(RUN)).record.stopReason);
      assert.equal((await host.resume(RUN, capture().io)).status, "completed");
      const history = await host.history(RUN);
      journals.push(history.events.map(({ root, event }) => ({ root, event })));
    }
    assert.deepEqual(stops, [
      { kind: "host", code: "interrupted" },
      { kind: "host", code: "interrupted" },
    ]);
    assert.deepEqual(journals[1], journals[0]);
  } finally {
    await Deno.remove(runs, { recursive: true });
  }
});

/** What a user reads of a refusal: its class, code, reason and message. */
function refusalFacts(error: unknown): Record<string, unknown> {
  assert.ok(error instanceof XmdError, String(error));
  const reason = "reason" in error ? error.reason : undefined;
  return { name: error.name, code: error.code, reason, message: error.message };
}

async function refusedWith(promise: Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    await promise;
  } catch (error) {
    return refusalFacts(error);
  }
  throw new Error("not refused");
}

Deno.test("RM-52 a refusal from the Durable Object reaches the runner as the local host's for the same state: busy, an answer already waiting (with its reason), cancel of a finished run, of a missing run", async () => {
  await using server = await startServer();
  const runs = await Deno.makeTempDir({ prefix: "xmd-remote-local-" });
  try {
    const local = new LocalWorkflowHost(runs);
    const remote = remoteHost(server);
    const program = await loadProgramFile(DOCUMENT, { cwd: TESTDATA });
    const hosts = [local, remote] as WorkflowHost[];
    const facts: Record<string, unknown>[][] = [[], []];
    for (const [i, host] of hosts.entries()) {
      const first = await host.start({ id: RUN, program, props: {} }, capture().io);
      const suspensionId = first.pendingSuspension!.suspensionId;
      await host.answer(RUN, suspensionId, ANSWER, true);
      // Another executor holds the run: the local lock, the Durable Object's owner.
      {
        using _held = i === 0
          ? await ExecutorLock.acquire(`${local.pathOf(RUN)}.lock`, RUN)
          : await heldRemotely(server);
        facts[i].push(await refusedWith(host.resume(RUN, capture().io)));
      }
      // A second answer: locally the store refuses it; remotely the Durable Object does.
      facts[i].push(
        await refusedWith(
          i === 0
            ? local.answer(RUN, suspensionId, ANSWER, true)
            : answerFrame(server, suspensionId),
        ),
      );
      assert.equal((await host.resume(RUN, capture().io)).status, "completed");
      facts[i].push(await refusedWith(host.cancel(RUN)));
      const missing = await refusedWith(host.cancel("no-such-run"));
      // The run is looked for in another place: the local one names its folder.
      facts[i].push({ ...missing, message: String(missing.message).replace(/ in .*$/, "") });
    }
    facts[1][3].message = String(facts[1][3].message).replace(/ remote run$/, " run");
    assert.deepEqual(facts[1], facts[0]);
    assert.deepEqual(facts[0].map((fact) => [fact.code, fact.reason]), [
      ["run.busy", undefined],
      ["run.state", "answer-waiting"],
      ["run.state", "state"],
      ["run.not_found", "missing"],
    ]);
  } finally {
    await Deno.remove(runs, { recursive: true });
  }
});

Deno.test("RM-111 two runners starting one new run at once: the one acquiring second is refused run.exists naming the run, and the first one's run is unchanged", async () => {
  await using server = await startServer();
  const program = await loadProgramFile(DOCUMENT, { cwd: TESTDATA });
  const first = remoteHost(server);
  let connections = 0;
  let after: string | undefined;
  // The second runner's second connection (its acquisition, once its read found no run) waits
  // until the first runner's whole start has run: the race, made deterministic.
  const second = new RemoteWorkflowHost({
    url: (id) => server.urlOf(id),
    headers: async () => {
      if (++connections === 2) {
        const started = await first.start({ id: RUN, program, props: {} }, capture().io);
        assert.equal(started.status, "suspended");
        after = await server.dump(RUN);
      }
      return {};
    },
  });
  const refusal = await refusedWith(second.start({ id: RUN, program, props: {} }, capture().io));
  assert.deepEqual(refusal, {
    name: "RemoteProtocolError",
    code: "run.exists",
    reason: undefined,
    message: `Cannot start run "${RUN}": another runner started it meanwhile`,
  });
  assert.equal(connections, 2);
  // Only the acquisition count moved: the record, journal and Workspace are the first runner's.
  const epoch = await server.epoch(RUN);
  const acquisitions = /"epoch":\d+/;
  assert.equal(epoch, JSON.parse(/^xmd_remote: (.*)$/m.exec(after!)![1]).epoch + 1);
  assert.equal(
    (await server.dump(RUN)).replace(acquisitions, ""),
    after!.replace(acquisitions, ""),
  );
  const again = await remoteHost(server).start({ id: RUN, program, props: {} }, capture().io);
  assert.equal(again.status, "suspended");
});

/** An executor connection holding run RUN in its Durable Object. */
async function heldRemotely(server: TestRemoteServer): Promise<Disposable> {
  const connection = await RemoteConnection.open(server.urlOf(RUN));
  await connection.call({ type: "hello", role: "executor" });
  return connection;
}

/** Sends an `answer` frame for RUN on a reader connection, as a runner racing another does. */
async function answerFrame(server: TestRemoteServer, suspensionId: string): Promise<void> {
  using connection = await RemoteConnection.open(server.urlOf(RUN));
  await connection.call({ type: "hello", role: "reader" });
  await connection.call({ type: "answer", suspensionId, value: ANSWER });
}

async function copiesIn(tmp: string): Promise<string[]> {
  const parent = join(tmp, "xmd-remote-copies");
  try {
    return (await Array.fromAsync(Deno.readDir(parent))).map((entry) => entry.name).sort();
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
}

Deno.test("RM-54 a SIGKILLed runner's working copy is removed by the next execution, which proves its owner dead by its lock; a copy in use is never removed", async () => {
  await using server = await startServer();
  const tmp = await Deno.makeTempDir({ prefix: "xmd-remote-tmp-" });
  try {
    const env = { TMPDIR: tmp };
    const killed = await runner(server, START, {
      ...env,
      XMD_FAILPOINT: "workspace-effect:sent:2",
    });
    assert.equal(killed.signal, "SIGKILL", killed.stderr);
    const stale = await copiesIn(tmp);
    assert.equal(stale.length, 1);
    // Another run's runner, frozen while it holds its copy (its second effect acknowledged).
    const other = "other-run";
    const frozen = spawnRunner(server, ["start", DOCUMENT, other, TESTDATA], {
      ...env,
      XMD_FAILPOINT: "workspace-effect:acked:2:stop",
    });
    const host = remoteHost(server);
    while (((await host.history(other).catch(() => null))?.events.length ?? 0) < 3) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const held = (await copiesIn(tmp)).filter((name) => !stale.includes(name));
    assert.equal(held.length, 1);
    // The next execution of the killed run removes the dead copy and leaves the live one.
    assertExit(await runner(server, ["resume", RUN], env), 2);
    assert.deepEqual(await copiesIn(tmp), held);
    Deno.kill(frozen.pid, "SIGCONT");
    const outcome = await outcomeOf(frozen);
    assert.equal(outcome.code, 2, outcome.stderr);
    assert.deepEqual(await copiesIn(tmp), []);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
