/**
 * Worker Shell blocks as durable Workspace effects, end to end through the
 * local workflow host (and once through the CLI): what each outcome of a
 * block keeps, publishes and journals. Large inputs close the file.
 *
 * Output note: just-bash returns a block's stdout and stderr when `exec`
 * ends, so a block's output reaches the document when the block ends, never
 * mid-block.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { type JournalEvent, loadProgram } from "@xmd/core";
import { LocalWorkflowHost, type LocalWorkflowHostOptions } from "@xmd/workflow/deno";
import { openRunDatabase } from "@xmd/workflow/deno/internal";
import { runXmd } from "../../../cli/src/deno/_run-xmd.ts";
import type { SqlSeam } from "../sql/sql-seam.ts";
import { publishRoot } from "../workspace/publish-root.ts";
import { FileObjectSchema, readObject, TreeObjectSchema } from "../workspace/verify-root.ts";
import { Workspace } from "../workspace/workspace.ts";
import { NodeSqliteSeam } from "./node-sqlite-seam.ts";
import { WorkerShell } from "./worker-shell.ts";
import { standInInterpreter } from "./_test-interpreters.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const MIB = 1024 * 1024;

// ---- support

type HistoryEntry = { id: number; root: string; event: JournalEvent };

/** A runs folder and a document folder, removed afterwards. */
class Sandbox implements AsyncDisposable {
  readonly dir: string;
  readonly runs: string;
  readonly host: LocalWorkflowHost;
  output = "";

  private constructor(dir: string, options: LocalWorkflowHostOptions) {
    this.dir = dir;
    this.runs = join(dir, "runs");
    this.host = new LocalWorkflowHost(this.runs, options);
  }

  static async create(options: LocalWorkflowHostOptions = {}): Promise<Sandbox> {
    return new Sandbox(await Deno.makeTempDir({ prefix: "xmd-effects-" }), options);
  }

  /** Starts run `id` of document `text`, in-process. */
  async start(id: string, text: string, signal = new AbortController().signal) {
    const program = await loadProgram({ file: "doc.md", text }, () => Promise.resolve(undefined));
    return await this.host.start({ id, program, props: {} }, this.#io(signal));
  }

  async resume(id: string, signal = new AbortController().signal) {
    return await this.host.resume(id, this.#io(signal));
  }

  /** The committed journal with each event's root. */
  async events(id: string): Promise<HistoryEntry[]> {
    return (await this.host.history(id)).events as HistoryEntry[];
  }

  /** Reads run `id`'s database: the live Workspace and its published roots. */
  async read<T>(id: string, fn: (sql: SqlSeam) => T): Promise<T> {
    const opened = await openRunDatabase(this.host.pathOf(id), `run "${id}"`, { create: false });
    using seam = opened!.seam;
    return fn(seam);
  }

  #io(signal: AbortSignal) {
    return {
      stdout: (text: string) => this.output += text,
      stderr: (text: string) => this.output += `[stderr]${text}`,
      onRun: () => {},
      signal,
    };
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await Deno.remove(this.dir, { recursive: true });
  }
}

/** Every path under `dir` with its content (files) or target (symlinks), sorted. */
function liveSnapshot(ws: Workspace, dir = "/"): string[] {
  const rows: string[] = [];
  for (const name of ws.readdir(dir)) {
    const path = dir === "/" ? `/${name}` : `${dir}/${name}`;
    const stat = ws.lstat(path);
    if (stat.kind === "dir") rows.push(`${path}/`, ...liveSnapshot(ws, path));
    else if (stat.kind === "symlink") rows.push(`${path} -> ${ws.readlink(path)}`);
    else rows.push(`${path} = ${JSON.stringify(decoder.decode(ws.readFile(path)))}`);
  }
  return rows;
}

/** The same listing, read from a published root's immutable objects. */
function rootSnapshot(sql: SqlSeam, root: string, prefix = ""): string[] {
  const rows: string[] = [];
  for (const [name, kind, , ref] of readObject(sql, root, TreeObjectSchema, "a root").entries) {
    const path = `${prefix}/${name}`;
    if (kind === "dir") rows.push(`${path}/`, ...rootSnapshot(sql, ref, path));
    else if (kind === "symlink") rows.push(`${path} -> ${ref}`);
    else rows.push(`${path} = ${JSON.stringify(decoder.decode(fileBytes(sql, ref)))}`);
  }
  return rows;
}

function fileBytes(sql: SqlSeam, ref: string): Uint8Array {
  const file = readObject(sql, ref, FileObjectSchema, "a file");
  const out = new Uint8Array(file.size);
  let offset = 0;
  for (const hash of file.chunks) {
    const data = sql.exec("SELECT data FROM ws_chunk WHERE hash = ?", hash)[0].data as Uint8Array;
    out.set(data, offset);
    offset += data.length;
  }
  return out;
}

/** The live Workspace and the current root's listing, which must agree. */
function workspaceOf(sql: SqlSeam): string[] {
  const root = String(sql.exec("SELECT root FROM event ORDER BY seq DESC LIMIT 1")[0].root);
  const live = liveSnapshot(new Workspace(sql));
  assert.deepEqual(rootSnapshot(sql, root), live, "the live Workspace differs from its root");
  return live;
}

function execEvents(events: HistoryEntry[]): HistoryEntry[] {
  return events.filter((entry) =>
    entry.event.type === "yield" && entry.event.description.type === "exec"
  );
}

/** The root current before event `entry` (the previous event's). */
function rootBefore(events: HistoryEntry[], entry: HistoryEntry): string {
  return events[events.indexOf(entry) - 1].root;
}

function result(entry: HistoryEntry) {
  assert.equal(entry.event.type, "yield");
  return (entry.event as Extract<JournalEvent, { type: "yield" }>).result;
}

function block(script: string, modifiers = ""): string {
  return `\`\`\`sh exec${modifiers ? ` ${modifiers}` : ""}\n${script}\n\`\`\`\n`;
}

async function sha256(data: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", data as BufferSource));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

// ---- semantics

Deno.test("effects: exit 0 keeps a block's changes as one effect, one event, a new root", async () => {
  await using box = await Sandbox.create();
  const report = await box.start(
    "ok",
    block("echo one > a; mkdir d; echo two > d/b; ln -s a link; cat a"),
  );
  assert.equal(report.status, "completed");
  assert.equal(box.output, "one\n");
  const events = await box.events("ok");
  const [exec] = execEvents(events);
  assert.equal(execEvents(events).length, 1);
  assert.deepEqual(result(exec), {
    status: "ok",
    value: { exitCode: 0, stdout: "one\n", stderr: "" },
  });
  assert.notEqual(exec.root, rootBefore(events, exec));
  await box.read("ok", (sql) => {
    assert.equal(
      String(sql.exec("SELECT root FROM event ORDER BY seq DESC LIMIT 1")[0].root),
      exec.root,
    );
    assert.deepEqual(rootSnapshot(sql, exec.root), [
      '/a = "one\\n"',
      "/d/",
      '/d/b = "two\\n"',
      "/link -> a",
    ]);
    assert.deepEqual(rootSnapshot(sql, rootBefore(events, exec)), []);
    workspaceOf(sql);
  });
});

Deno.test("effects: a nonzero exit without as rolls the block back and commits one failed result (CLI)", async () => {
  await using box = await Sandbox.create();
  await Deno.writeTextFile(
    join(box.dir, "doc.md"),
    `${block("echo kept > kept")}\n${
      block("echo partial > partial; mkdir dir; rm kept; echo said; exit 3")
    }\nnever rendered\n`,
  );
  const xmd = (...args: string[]) =>
    runXmd(["workflow", ...args], { cwd: box.dir, env: { XMD_WORKFLOW_RUNS: box.runs } });
  const started = await xmd("start", "--id=fails", "doc.md");
  assert.equal(started.code, 1, started.stderr);
  assert.match(started.stderr, /The sh block exited with code 3/);
  assert.doesNotMatch(started.stdout, /never rendered/);
  const shown = await xmd("history", "fails", "--json");
  assert.equal(shown.code, 0, shown.stderr);
  const history = JSON.parse(shown.stdout) as {
    status: string;
    events: ({ root: string } & JournalEvent)[];
  };
  assert.equal(history.status, "failed");
  const execs = history.events.filter((event) =>
    event.type === "yield" && event.description.type === "exec"
  );
  assert.equal(execs.length, 2);
  const [kept, failed] = execs as Extract<JournalEvent, { type: "yield" }>[] as (
    & Extract<JournalEvent, { type: "yield" }>
    & { root: string }
  )[];
  assert.deepEqual(failed.result, {
    status: "ok",
    value: { exitCode: 3, stdout: "said\n", stderr: "" },
  });
  assert.equal(failed.root, kept.root, "the failed block published a root");
  assert.equal(history.events.at(-1)!.root, kept.root);
  assert.deepEqual(await box.read("fails", workspaceOf), ['/kept = "kept\\n"']);
});

Deno.test("effects: with as, the exit code, stdout and stderr are data and the changes are kept", async () => {
  await using box = await Sandbox.create();
  const report = await box.start(
    "as",
    `${
      block("echo kept > k; echo out; echo err >&2; exit 4", 'as="r"')
    }\ncode={r.exitCode} out={r.stdout.trim()} err={r.stderr.trim()}\n`,
  );
  assert.equal(report.status, "completed");
  assert.equal(box.output, "code=4 out=out err=err\n");
  const events = await box.events("as");
  const [exec] = execEvents(events);
  assert.deepEqual(result(exec), {
    status: "ok",
    value: { exitCode: 4, stdout: "out\n", stderr: "err\n" },
  });
  assert.notEqual(exec.root, rootBefore(events, exec));
  assert.deepEqual(await box.read("as", workspaceOf), ['/k = "kept\\n"']);
});

Deno.test("effects: an interpreter failure rolls the block back and commits one failed result", async () => {
  // just-bash itself reports its failures as exit codes (a syntax error is exit
  // 2), so a stand-in interpreter fails the way a broken one would: after a write.
  await using standIn = await standInInterpreter(`
    let token = "";
    onFrame((header) => {
      if (header.type === "run") {
        token = header.token;
        send({ type: "fs", token, id: 0, op: "writeFile", args: ["/partial"] }, encoder.encode("half"));
      } else {
        send({ type: "crash", token, message: "InternalError: the interpreter gave up" });
      }
    });`);
  await using box = await Sandbox.create({ shell: { interpreter: standIn.url } });
  const report = await box.start(
    "crash",
    `<File path="kept">kept</File>\n\n${block("echo never runs")}`,
  );
  assert.equal(report.status, "failed");
  assert.match(report.failure!, /The shell interpreter failed: InternalError/);
  const events = await box.events("crash");
  const [failed] = execEvents(events);
  assert.deepEqual(result(failed), {
    status: "err",
    error: {
      name: "WorkerShellError",
      message: "The shell interpreter failed: InternalError: the interpreter gave up",
    },
  });
  assert.equal(failed.root, rootBefore(events, failed));
  assert.deepEqual(await box.read("crash", workspaceOf), ['/kept = "kept"']);
});

Deno.test("effects: a syntax error is the block's exit code 2, and nothing is kept", async () => {
  await using box = await Sandbox.create();
  const syntax = await box.start("syntax", block("echo x > x\nif then fi"));
  assert.equal(syntax.status, "failed");
  assert.match(syntax.failure!, /exited with code 2/);
  const [exec] = execEvents(await box.events("syntax"));
  assert.deepEqual(result(exec), {
    status: "ok",
    value: {
      exitCode: 2,
      stdout: "",
      stderr: "bash: syntax error: Parse error at 2:9: syntax error near unexpected token `fi'\n",
    },
  });
  assert.deepEqual(await box.read("syntax", workspaceOf), []);
});

Deno.test("effects: a CPU-bound block is stopped at its timeout while the host keeps serving; nothing is kept", async () => {
  await using box = await Sandbox.create();
  let ticks = 0;
  const timer = setInterval(() => ticks++, 10);
  let report;
  try {
    report = await box.start(
      "spin",
      `${block("echo before > before; while true; do :; done", "timeout=1s")}\nafter\n`,
    );
  } finally {
    clearInterval(timer);
  }
  assert.equal(report.status, "failed");
  assert.match(report.failure!, /The sh block timed out after 1000 ms/);
  // About 100 ticks fit in the second the block spins; a blocked host would count none.
  assert.ok(ticks >= 20, `the host's timer fired only ${ticks} times during the block`);
  const events = await box.events("spin");
  const [exec] = execEvents(events);
  assert.deepEqual(result(exec), {
    status: "ok",
    value: { exitCode: 124, stdout: "", stderr: "", timedOut: true },
  });
  assert.equal(exec.root, rootBefore(events, exec));
  assert.deepEqual(await box.read("spin", workspaceOf), []);
});

Deno.test("effects: a cancelled block publishes nothing, and resuming runs it again", async () => {
  await using box = await Sandbox.create();
  const controller = new AbortController();
  let report;
  // Cancel once the block has written c and asks to read it back: mid-block, deterministically.
  const readFile = Workspace.prototype.readFile;
  Workspace.prototype.readFile = function (this: Workspace, path: string) {
    if (path === "/c") controller.abort();
    return readFile.call(this, path);
  };
  try {
    report = await box.start("cancel", block("echo x > c; cat c > d"), controller.signal);
  } finally {
    Workspace.prototype.readFile = readFile;
  }
  assert.equal(report.status, "interrupted");
  let events = await box.events("cancel");
  const [cancelled] = execEvents(events);
  assert.deepEqual(result(cancelled), { status: "cancelled" });
  assert.equal(cancelled.root, rootBefore(events, cancelled));
  assert.deepEqual(await box.read("cancel", workspaceOf), []);

  const resumed = await box.resume("cancel");
  assert.equal(resumed.status, "completed");
  events = await box.events("cancel");
  const [, done] = execEvents(events);
  assert.equal(result(done).status, "ok");
  assert.notEqual(done.root, cancelled.root);
  assert.deepEqual(await box.read("cancel", workspaceOf), ['/c = "x\\n"', '/d = "x\\n"']);
});

Deno.test("effects: a stale interpreter's requests are refused by token, before and after its effect ends", async () => {
  // Block 1 writes /one. Block 2 sends requests under block 1's token and its
  // own, prints the replies, ends, then sends one more under its own token;
  // block 3 prints that last reply.
  await using standIn = await standInInterpreter(`
    const tokens: string[] = [];
    const replies: Record<number, unknown> = {};
    let waiting = 0;
    const print = (token: string, value: unknown) =>
      send({ type: "output", token, stream: "stdout" }, encoder.encode(JSON.stringify(value)));
    const fs = (token: string, id: number, op: string, args: string[], content?: Uint8Array) =>
      send({ type: "fs", token, id, op, args }, content);
    // Block 3 may start before the reply to request 4 arrives: it waits for it.
    const finishThird = () => {
      if (tokens.length < 3 || !(4 in replies)) return;
      print(tokens[2], { 4: replies[4] });
      send({ type: "done", token: tokens[2], exitCode: 0 });
    };
    onFrame((header, payload) => {
      if (header.type === "reply") {
        replies[header.id] = header.error?.code ?? decoder.decode(payload);
        if (header.id === 0) send({ type: "done", token: tokens[0], exitCode: 0 });
        if (header.id === 4) finishThird();
        if (--waiting === 0) {
          print(tokens[1], { 1: replies[1], 2: replies[2], 3: replies[3] });
          send({ type: "done", token: tokens[1], exitCode: 0 });
          fs(tokens[1], 4, "writeFile", ["/late"], encoder.encode("x"));
        }
        return;
      }
      tokens.push(header.token);
      if (tokens.length === 1) {
        fs(tokens[0], 0, "writeFile", ["/one"], encoder.encode("one\\n"));
      } else if (tokens.length === 2) {
        waiting = 3;
        fs(tokens[0], 1, "writeFile", ["/stale"], encoder.encode("x"));
        fs(tokens[0], 2, "readFile", ["/one"]);
        fs(tokens[1], 3, "readFile", ["/one"]);
      } else {
        finishThird();
      }
    });`);
  const seam = new NodeSqliteSeam(new DatabaseSync(":memory:"));
  seam.transaction(() => Workspace.initialize(seam));
  const ws = new Workspace(seam);
  await using shell = new WorkerShell(ws, { interpreter: standIn.url });
  assert.equal((await shell.run(request("first"))).exitCode, 0);
  const second = await shell.run(request("second"));
  assert.equal(second.exitCode, 0);
  assert.deepEqual(JSON.parse(second.stdout), {
    1: "EACCES",
    2: "EACCES",
    3: "one\n", // the current token is served
  });
  const third = await shell.run(request("third"));
  assert.deepEqual(JSON.parse(third.stdout), { 4: "EACCES" });
  assert.deepEqual(ws.readdir("/"), ["one"]);
});

function request(script: string, timeoutMs = 30_000) {
  return {
    lang: "sh",
    script,
    cwd: ".",
    timeoutMs,
    onStdout: () => {},
    onStderr: () => {},
    signal: new AbortController().signal,
  };
}

// ---- large inputs

/** `seq 1 150000`: 938,895 bytes, a period that does not divide 1 MiB, so chunks differ. */
const SEED = encoder.encode(Array.from({ length: 150_000 }, (_, i) => `${i + 1}\n`).join(""));
/** Copies of the seed in the large file: 210,312,480 bytes (200.6 MiB). */
const COPIES = 224;

Deno.test("large: a 200 MiB file written by a block is committed in 1 MiB chunks and reads back", async () => {
  await using box = await Sandbox.create();
  const report = await box.start(
    "big",
    `${
      block(
        [
          "seq 1 150000 > s",
          "cat s s s s s s s s > s8",
          "cat s8 s8 s8 s8 s8 s8 s8 s8 > s64",
          "cat s64 s64 s64 s8 s8 s8 s8 > big",
          "rm s s8 s64",
        ].join("\n"),
        "timeout=10min",
      )
    }\n${block("wc -c < big; sha256sum big", 'as="check" timeout=10min')}\n{check.stdout}`,
  );
  assert.equal(report.status, "completed", report.failure ?? "");

  const expected = new Uint8Array(SEED.length * COPIES);
  for (let copy = 0; copy < COPIES; copy++) expected.set(SEED, copy * SEED.length);
  const expectedChunks: string[] = [];
  for (let offset = 0; offset < expected.length; offset += MIB) {
    expectedChunks.push(await sha256(expected.subarray(offset, offset + MIB)));
  }
  const expectedSha = await sha256(expected);
  assert.equal(box.output, `${expected.length}\n${expectedSha}  big\n`);

  const [written] = execEvents(await box.events("big"));
  const { file, lengths, content } = await box.read("big", (sql) => {
    const [[name, kind, , ref]] = readObject(sql, written.root, TreeObjectSchema, "root").entries;
    assert.deepEqual([name, kind], ["big", "file"]);
    const file = readObject(sql, ref, FileObjectSchema, "big");
    const lengths = file.chunks.map((hash) =>
      Number(sql.exec("SELECT length(data) AS n FROM ws_chunk WHERE hash = ?", hash)[0].n)
    );
    return { file, lengths, content: fileBytes(sql, ref) };
  });
  assert.equal(file.size, 210_312_480);
  assert.equal(file.chunks.length, 201);
  assert.deepEqual(file.chunks, expectedChunks);
  assert.ok(lengths.every((length) => length > 0 && length <= MIB));
  assert.equal(lengths.reduce((a, b) => a + b), file.size);
  assert.equal(await sha256(content), expectedSha);
});

Deno.test("large: a block lists and changes a 20,000-file Workspace; one file's change republishes one entry", async () => {
  const seam = new NodeSqliteSeam(new DatabaseSync(":memory:"));
  seam.transaction(() => Workspace.initialize(seam));
  const ws = new Workspace(seam);
  const names = Array.from({ length: 20_000 }, (_, i) => `f${String(i).padStart(5, "0")}`);
  const before = seam.transaction(() => {
    ws.mkdir("/d");
    for (const name of names) ws.writeFile(`/d/${name}`, encoder.encode(`${name}\n`));
    return publishRoot(seam);
  });
  using shell = new WorkerShell(ws);
  const result = await shell.run(request(
    "ls d | wc -l; find d -type f | wc -l; ls d | head -n 2; ls d | tail -n 1; " +
      "cat d/f12345; echo changed > d/f00007",
    120_000,
  ));
  assert.equal(result.stderr, "");
  assert.equal(result.stdout, "20000\n20000\nf00000\nf00001\nf19999\nf12345\n");
  const after = seam.transaction(() => publishRoot(seam));
  assert.notEqual(after, before);
  const entries = (root: string) => {
    const [[, , , dir]] = readObject(seam, root, TreeObjectSchema, "root").entries;
    return readObject(seam, dir, TreeObjectSchema, "d").entries;
  };
  const old = entries(before);
  const now = entries(after);
  assert.equal(now.length, 20_000);
  const changed = now.filter((entry, i) => entry[3] !== old[i][3]).map((entry) => entry[0]);
  assert.deepEqual(changed, ["f00007"]);
  assert.equal(decoder.decode(ws.readFile("/d/f00007")), "changed\n");
});
