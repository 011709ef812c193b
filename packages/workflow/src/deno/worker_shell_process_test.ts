/**
 * Worker Shell's interpreter process as a user meets it: a block that
 * exhausts the heap, an interpreter killed from outside, a host that may not
 * start one, and an interpreter that breaks the framing (WS-36, WS-44, WS-45).
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runXmd, spawnXmd } from "../../../cli/src/deno/_run-xmd.ts";
import { Workspace } from "../workspace/workspace.ts";
import { NodeSqliteSeam } from "./node-sqlite-seam.ts";
import { WorkerShell, WorkerShellError } from "./worker-shell.ts";
import { standInInterpreter } from "./_test-interpreters.ts";

async function folder(): Promise<{ dir: string; env: Record<string, string> } & AsyncDisposable> {
  const dir = await Deno.makeTempDir({ prefix: "xmd-interpreter-process-" });
  return {
    dir,
    env: { XMD_WORKFLOW_RUNS: join(dir, "runs") },
    async [Symbol.asyncDispose]() {
      await Deno.remove(dir, { recursive: true });
    },
  };
}

async function history(cwd: string, env: Record<string, string>, id: string) {
  const shown = await runXmd(["workflow", "history", id, "--json"], { cwd, env });
  assert.equal(shown.code, 0, shown.stderr);
  return JSON.parse(shown.stdout) as {
    status: string;
    stopReason: unknown;
    events: { type: string; root: string; result?: { status: string; error?: unknown } }[];
  };
}

Deno.test("WS-44: a block that exhausts the interpreter's heap fails the run with out of memory; only the block's changes go", async () => {
  await using box = await folder();
  await Deno.writeTextFile(
    join(box.dir, "grow.md"),
    [
      '<File path="kept.txt">kept</File>',
      "",
      "```sh exec",
      "echo lost > lost.txt",
      "x=$(seq 1 300000)",
      "a=()",
      "i=0",
      'while true; do i=$((i+1)); a+=("${x/1/$i}"); done',
      "```",
      "",
      "never reached",
      "",
    ].join("\n"),
  );
  const env = { ...box.env, XMD_WORKER_SHELL_HEAP_MIB: "64" };
  const started = await runXmd(["workflow", "start", "--id=grow", "grow.md"], {
    cwd: box.dir,
    env,
  });
  assert.equal(started.code, 1, started.stderr);
  assert.match(
    started.stderr,
    /grow\.md:3:1: Cannot finish the block: Worker Shell ran out of memory \(its heap limit is 64 MiB\)/,
  );
  assert.match(started.stderr, /workflow status: failed/);
  assert.doesNotMatch(started.stderr, /internal error|\n\s+at /);
  assert.doesNotMatch(started.stdout, /never reached/);

  const run = await history(box.dir, env, "grow");
  assert.equal(run.status, "failed");
  const exec = run.events.find((event) =>
    event.type === "yield" && event.result?.status === "err"
  )!;
  assert.deepEqual(exec.result!.error, {
    name: "WorkerShellError",
    message: "Cannot finish the block: Worker Shell ran out of memory (its heap limit is 64 MiB)",
  });
  // The block's write is discarded: its event keeps the root of the <File> before it.
  assert.equal(exec.root, run.events[run.events.indexOf(exec) - 1].root);
  const out = join(box.dir, "out");
  const exported = await runXmd(["workflow", "export", "grow", out], { cwd: box.dir, env });
  assert.equal(exported.code, 0, exported.stderr);
  assert.deepEqual([...Deno.readDirSync(out)].map((entry) => entry.name), ["kept.txt"]);

  // Replaying the failed run reproduces the failure without running the block again.
  const resumed = await runXmd(["workflow", "resume", "grow"], { cwd: box.dir, env });
  assert.equal(resumed.code, 1);
  assert.match(resumed.stderr, /cannot be resumed/);
});

Deno.test("WS-45: an interpreter killed from outside leaves the run interrupted (exit 130); resume runs the block again", async () => {
  await using box = await folder();
  await Deno.writeTextFile(
    join(box.dir, "slow.md"),
    "```sh exec\necho half > half.txt\necho started\nsleep 3\necho done > done.txt\n```\n\nafter\n",
  );
  const child = spawnXmd(["workflow", "start", "--id=slow", "slow.md"], {
    cwd: box.dir,
    env: box.env,
  });
  const stdout = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  while (!seen.includes("started")) {
    const { value, done } = await stdout.read();
    assert.ok(!done, "the block never started");
    seen += value;
  }
  // The interpreter is the xmd process's only child.
  const listed = await new Deno.Command("pgrep", { args: ["-P", String(child.pid)] }).output();
  const pids = new TextDecoder().decode(listed.stdout).trim().split(/\s+/).filter(Boolean);
  assert.equal(pids.length, 1, "one interpreter process");
  Deno.kill(Number(pids[0]), "SIGKILL");
  for (;;) {
    const { done } = await stdout.read();
    if (done) break;
  }
  const stderr = await new Response(child.stderr).text();
  const status = await child.status;
  assert.equal(status.code, 130, stderr);
  assert.match(stderr, /workflow status: interrupted/);
  assert.match(
    stderr,
    /xmd: Worker Shell's interpreter stopped \(signal SIGKILL\) before the block ended; the block's changes were discarded\nContinue the run with: xmd workflow resume slow\n/,
  );
  const interrupted = await history(box.dir, box.env, "slow");
  assert.equal(interrupted.status, "interrupted");
  assert.deepEqual(interrupted.stopReason, { kind: "host", code: "crashed" });
  // Only the props event: nothing of the block was journaled.
  assert.equal(interrupted.events.length, 1);

  await Deno.writeTextFile(
    join(box.dir, "slow.md"),
    "edited: resume runs the retained document\n",
  );
  const resumed = await runXmd(["workflow", "resume", "slow"], { cwd: box.dir, env: box.env });
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal(resumed.stdout, "started\n\nafter\n");
  const out = join(box.dir, "out");
  const exported = await runXmd(["workflow", "export", "slow", out], {
    cwd: box.dir,
    env: box.env,
  });
  assert.equal(exported.code, 0, exported.stderr);
  assert.equal(await Deno.readTextFile(join(out, "half.txt")), "half\n");
  assert.equal(await Deno.readTextFile(join(out, "done.txt")), "done\n");
});

Deno.test("WS-45: a host without --allow-run refuses to start a document with an exec block, and writes nothing", async () => {
  await using box = await folder();
  const script = join(box.dir, "library.ts");
  const mod = (path: string) => JSON.stringify(new URL(`../../../${path}`, import.meta.url).href);
  await Deno.writeTextFile(
    script,
    `import { loadProgram } from ${mod("core/mod.ts")};
import { LocalWorkflowHost } from ${mod("workflow/deno.ts")};
const program = await loadProgram({ file: "doc.md", text: "\`\`\`sh exec\\necho hi\\n\`\`\`\\n" }, () => Promise.resolve(undefined));
try {
  await new LocalWorkflowHost(Deno.args[0]).start({ id: "r", program, props: {} }, {
    stdout() {}, stderr() {}, onRun() {}, signal: new AbortController().signal,
  });
  console.log("started");
} catch (error) {
  console.log(error.name + ": " + error.message);
}
`,
  );
  const runs = join(box.dir, "runs");
  const config = fileURLToPath(new URL("../../../../deno.json", import.meta.url));
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      `--config=${config}`,
      "--no-prompt",
      `--allow-read`,
      `--allow-write=${box.dir}`,
      "--allow-env",
      script,
      runs,
    ],
  }).output();
  const printed = new TextDecoder().decode(output.stdout);
  assert.equal(
    printed,
    `WorkerShellPermissionError: Cannot run shell blocks: Worker Shell starts its interpreter with ${Deno.execPath()}, which this process may not run (give Deno --allow-run=${Deno.execPath()}, or -A)\n`,
    new TextDecoder().decode(output.stderr),
  );
  assert.deepEqual(
    (await Array.fromAsync(Deno.readDir(box.dir))).map((entry) => entry.name),
    ["library.ts"],
  );
});

Deno.test("WS-36: an interpreter frame over its bound, or one that does not parse, fails the block and the host serves on", async () => {
  const seam = new NodeSqliteSeam(new DatabaseSync(":memory:"));
  seam.transaction(() => Workspace.initialize(seam));
  const ws = new Workspace(seam);
  const request = {
    lang: "sh",
    script: "x",
    cwd: ".",
    timeoutMs: 30_000,
    onStdout: () => {},
    onStderr: () => {},
    signal: new AbortController().signal,
  };
  {
    // A header claiming 2 GiB: refused from its length, before anything is buffered.
    await using oversized = await standInInterpreter(`
      onFrame(() => {
        const prefix = new Uint8Array(8);
        new DataView(prefix.buffer).setUint32(0, 2 ** 31);
        out.write(prefix);
      });`);
    await using shell = new WorkerShell(ws, { interpreter: oversized.url });
    await assert.rejects(
      shell.run(request),
      (error) =>
        error instanceof WorkerShellError &&
        /broke its protocol: A Worker Shell frame is over its bound/.test(error.message),
    );
  }
  {
    await using malformed = await standInInterpreter(`
      onFrame((header) => send({ type: "fs", token: header.token, id: -1, op: "format", args: [] }));`);
    await using shell = new WorkerShell(ws, { interpreter: malformed.url });
    await assert.rejects(
      shell.run(request),
      (error) =>
        error instanceof WorkerShellError &&
        error.message === "Worker Shell's interpreter sent a malformed message",
    );
  }
  // The real interpreter still runs on the same Workspace afterwards.
  await using shell = new WorkerShell(ws);
  const result = await shell.run({ ...request, script: "echo ok > ok; cat ok" });
  assert.equal(result.stdout, "ok\n");
  assert.deepEqual(ws.readdir("/"), ["ok"]);
});

Deno.test("WS-34: the interpreter imports the just-bash its own lock pins, the one deno.lock resolves, with the same packages", async () => {
  const read = async (url: URL) => JSON.parse(await Deno.readTextFile(url));
  const child = await read(new URL("./worker-shell-child-lock.json", import.meta.url));
  const root = await read(new URL("../../../../deno.lock", import.meta.url));
  const pinned = Object.keys(root.specifiers).filter((name) => name.startsWith("npm:just-bash@"));
  assert.equal(pinned.length, 1, `${pinned}`);
  const version = root.specifiers[pinned[0]];
  assert.equal(pinned[0], `npm:just-bash@${version}`, "the packages import one exact version");
  assert.deepEqual(child.specifiers, { [`npm:just-bash@${version}`]: version });
  // The interpreter imports that very version: it runs with no configuration file.
  const source = await Deno.readTextFile(new URL("./worker-shell-child.ts", import.meta.url));
  assert.deepEqual(
    [...source.matchAll(/from "(npm:just-bash@[^"]*)"/g)].map((match) => match[1]),
    [`npm:just-bash@${version}`],
  );
  for (const [name, entry] of Object.entries(child.npm)) {
    assert.deepEqual(entry, root.npm[name], `${name} differs from deno.lock`);
  }
  // Every package just-bash needs is in the interpreter's lock.
  const names = new Set(Object.keys(child.npm));
  for (const entry of Object.values(child.npm) as { dependencies?: string[] }[]) {
    for (const dependency of entry.dependencies ?? []) {
      assert.ok(
        names.has(dependency) || [...names].some((name) => name.startsWith(`${dependency}@`)),
        `${dependency} is missing`,
      );
    }
  }
});

Deno.test("MDX-130: the interpreter's lock path is what node:url's fileURLToPath gives for its file: URL", async () => {
  const { filePath } = await import("./worker-shell-process.ts");
  for (
    const href of [
      "file:///home/ann/xmd/packages/workflow/src/deno/worker-shell-child-lock.json",
      "file:///tmp/with%20space/%C3%A9t%C3%A9/lock.json",
      "file:///tmp/100%25/%23hash/%3Fquery/lock.json",
      "file:///",
    ]
  ) {
    assert.equal(filePath(new URL(href)), fileURLToPath(href), href);
  }
});
