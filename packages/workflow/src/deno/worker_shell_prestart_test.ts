/**
 * Worker Shell's interpreter started ahead of a run's first exec block
 * (WF-130, WF-131): a local start or resume of a document with exec blocks
 * starts it before its checks and its replay, the first block runs in that
 * process, and a start or resume refused after it started leaves no process.
 * Real interpreter processes, found in /proc by a marker in their module URL
 * (so processes other tests start are not counted), real run databases in
 * temp dirs.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { loadProgram, SecretDetectedError } from "@xmd/core";
import { RunConflictError } from "../contracts/workflow-errors.ts";
import type { ExecutionIo } from "../contracts/workflow-host.ts";
import { LocalWorkflowHost } from "./local-workflow-host.ts";
import { INTERPRETER_URL } from "./worker-shell-process.ts";

/** The live processes whose command line holds `marker`, children of this one. */
function interpreters(marker: string): number[] {
  const found: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      // `pid (comm) state ppid ...`: comm may hold spaces, so read after its last ')'.
      const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(ppid) !== Deno.pid || state === "Z") continue;
      if (Deno.readTextFileSync(`/proc/${entry.name}/cmdline`).includes(marker)) {
        found.push(Number(entry.name));
      }
    } catch {
      // It ended while being read.
    }
  }
  return found;
}

/** A host whose interpreter's module URL carries a marker of its own. */
function markedHost(runs: string): { host: LocalWorkflowHost; marker: string } {
  const marker = `prestart-${crypto.randomUUID()}`;
  const interpreter = new URL(INTERPRETER_URL.href);
  interpreter.searchParams.set("test", marker);
  return { host: new LocalWorkflowHost(runs, { shell: { interpreter } }), marker };
}

function io(onStdout: (text: string) => void = () => {}, extra: Partial<ExecutionIo> = {}) {
  return {
    stdout: onStdout,
    stderr: () => {},
    onRun: () => {},
    signal: new AbortController().signal,
    ...extra,
  } satisfies ExecutionIo;
}

const program = (text: string) =>
  loadProgram({ file: "doc.md", text }, () => Promise.resolve(undefined));

const SHELL_DOC = "# Doc\n\n```sh exec\necho one > f\ncat f\n```\n";

/** Every file of the runs folder, by name, with its bytes (none when it does not exist). */
async function folder(dir: string): Promise<Map<string, Uint8Array>> {
  const files = new Map<string, Uint8Array>();
  try {
    for await (const entry of Deno.readDir(dir)) {
      files.set(entry.name, await Deno.readFile(join(dir, entry.name)));
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return files;
}

Deno.test("WF-130: a start of a document with exec blocks has its interpreter running before the run exists, and its first block runs in that process", async () => {
  const dir = await Deno.makeTempDir({ prefix: "xmd-prestart-" });
  try {
    const { host, marker } = markedHost(join(dir, "runs"));
    let atRun: number[] = [];
    let atBlock: number[] = [];
    let out = "";
    const report = await host.start(
      { id: "early", program: await program(SHELL_DOC), props: {} },
      io((text) => out += text, {
        onRun: () => atRun = interpreters(marker),
        onExec: () => {
          atBlock = interpreters(marker);
          return () => {};
        },
      }),
    );
    assert.equal(report.status, "completed");
    assert.equal(out, "# Doc\n\none\n");
    // Started before the run's database was created (onRun), and the very process the block ran in.
    assert.equal(atRun.length, 1);
    assert.deepEqual(atBlock, atRun);
    assert.deepEqual(interpreters(marker), []);

    // Without exec blocks, no interpreter is started at all.
    const { host: plain, marker: unused } = markedHost(join(dir, "runs"));
    let started: number[] = [1];
    await plain.start(
      { id: "plain", program: await program("# Plain\n"), props: {} },
      io(() => {}, { onRun: () => started = interpreters(unused) }),
    );
    assert.deepEqual(started, []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("WF-130: a resume of a run with exec blocks ahead has its interpreter running while the journal replays, and runs the next block in it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "xmd-prestart-resume-" });
  try {
    const { host, marker } = markedHost(join(dir, "runs"));
    const doc = await program(
      '# Doc\n\n<Elicit as="go" schema={{ type: "boolean" }}>Go on?</Elicit>\n\n```sh exec\necho "go {go}"\n```\n',
    );
    const started = await host.start({ id: "later", program: doc, props: {} }, io());
    assert.equal(started.status, "suspended");
    await host.answer("later", started.pendingSuspension!.suspensionId, true, true);
    let atReplay: number[] | undefined;
    let atBlock: number[] = [];
    let out = "";
    const resumed = await host.resume(
      "later",
      io((text) => {
        // The heading, replayed before the block is reached.
        atReplay ??= interpreters(marker);
        out += text;
      }, {
        onExec: () => {
          atBlock = interpreters(marker);
          return () => {};
        },
      }),
    );
    assert.equal(resumed.status, "completed");
    assert.match(out, /go true\n$/);
    assert.equal(atReplay?.length, 1);
    assert.deepEqual(atBlock, atReplay);
    assert.deepEqual(interpreters(marker), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("WF-131: a start or resume refused after its interpreter started leaves no interpreter process and changes nothing", async () => {
  const dir = await Deno.makeTempDir({ prefix: "xmd-prestart-refused-" });
  try {
    const runs = join(dir, "runs");
    const { host, marker } = markedHost(runs);
    // Built by concatenation so this repository's own files do not trip secret scanners.
    const secret = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
    // The secret gate refuses the source: no database is created.
    await assert.rejects(
      host.start(
        { id: "secret", program: await program(`${SHELL_DOC}\n${secret}\n`), props: {} },
        io(),
      ),
      SecretDetectedError,
    );
    assert.deepEqual(interpreters(marker), []);
    assert.deepEqual([...(await folder(runs)).keys()], []);

    // An existing run of another document: the start conflicts, and the run's files stay as they were.
    const first = await host.start(
      { id: "taken", program: await program(SHELL_DOC), props: {} },
      io(),
    );
    assert.equal(first.status, "completed");
    const before = await folder(runs);
    await assert.rejects(
      host.start(
        { id: "taken", program: await program(`${SHELL_DOC}\nother\n`), props: {} },
        io(),
      ),
      RunConflictError,
    );
    assert.deepEqual(interpreters(marker), []);
    assert.deepEqual(await folder(runs), before);

    // A resume whose stored answer the gate refuses (accepted with secret detection off) stays suspended.
    const asked = await host.start({
      id: "asked",
      program: await program(
        '# Doc\n\n<Elicit as="note" schema={{ type: "string" }}>Note?</Elicit>\n\n```sh exec\necho "{note}"\n```\n',
      ),
      props: {},
    }, io());
    await host.answer("asked", asked.pendingSuspension!.suspensionId, secret, false);
    const answered = await folder(runs);
    await assert.rejects(host.resume("asked", io()), SecretDetectedError);
    assert.deepEqual(interpreters(marker), []);
    assert.deepEqual(await folder(runs), answered);
    assert.equal((await host.inspect("asked")).record.status, "suspended");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("WF-170: an interpreter the host starts ahead of a start, before any document is loaded, runs the start's first block; given to a start without exec blocks or refused, it is ended", async () => {
  const dir = await Deno.makeTempDir({ prefix: "xmd-prestart-ahead-" });
  try {
    const runs = join(dir, "runs");
    const { host, marker } = markedHost(runs);
    const ahead = await host.prestartInterpreter();
    assert.ok(ahead);
    // Running before the start is even called.
    const running = interpreters(marker);
    assert.equal(running.length, 1);
    let atBlock: number[] = [];
    let out = "";
    const report = await host.start(
      { id: "ahead", program: await program(SHELL_DOC), props: {} },
      io((text) => out += text, {
        onExec: () => {
          atBlock = interpreters(marker);
          return () => {};
        },
      }),
      { prestarted: ahead },
    );
    assert.equal(report.status, "completed");
    assert.equal(out, "# Doc\n\none\n");
    // The block ran in that very process, and no second one was started.
    assert.deepEqual(atBlock, running);
    assert.deepEqual(interpreters(marker), []);

    // A document without exec blocks: ended before the run is created, not after it.
    let atRun: number[] = [1];
    const plain = await host.start(
      { id: "plain", program: await program("# Plain\n"), props: {} },
      io(() => {}, { onRun: () => atRun = interpreters(marker) }),
      { prestarted: await host.prestartInterpreter() },
    );
    assert.equal(plain.status, "completed");
    assert.deepEqual(atRun, []);

    // A start the secret gate refuses: nothing is created, and nothing is left running.
    const before = await folder(runs);
    const secret = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
    await assert.rejects(
      host.start(
        { id: "secret", program: await program(`${SHELL_DOC}\n${secret}\n`), props: {} },
        io(),
        { prestarted: await host.prestartInterpreter() },
      ),
      SecretDetectedError,
    );
    assert.deepEqual(interpreters(marker), []);
    assert.deepEqual(await folder(runs), before);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
