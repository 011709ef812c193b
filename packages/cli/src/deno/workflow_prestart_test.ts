/**
 * `xmd workflow start` starts Worker Shell's interpreter before it loads the
 * document when the root document visibly holds a shell block (WF-170), and
 * a start refused once it has leaves no interpreter behind. The CLI runs as a
 * real subprocess; its document needs a component that is a FIFO, so the
 * start waits in the document's load until the test writes the component,
 * and the interpreter is looked for meanwhile among the CLI's children in
 * /proc, by a heap limit of its own (`XMD_WORKER_SHELL_HEAP_MIB`). A start killed
 * while its block computes leaves no interpreter behind (WS-37).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { spawnXmd } from "./_run-xmd.ts";

/** The live processes whose command line holds `marker`: children of `parent`, if given. */
function processes(marker: string, parent?: number): number[] {
  const found: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      // `pid (comm) state ppid ...`: comm may hold spaces, so read after its last ')'.
      const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if ((parent !== undefined && Number(ppid) !== parent) || state === "Z") continue;
      if (Deno.readTextFileSync(`/proc/${entry.name}/cmdline`).includes(marker)) {
        found.push(Number(entry.name));
      }
    } catch {
      // It ended while being read.
    }
  }
  return found;
}

/** User and system CPU time of process `pid`, in clock ticks (1/100 s on Linux). */
function cpuTicks(pid: number): number {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  // After `pid (comm) `: state is field 3, utime and stime fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

/**
 * Starts `doc.md` of `dir`, whose component `Slow.md` is a FIFO; once the
 * interpreter is seen (or a few seconds have passed) `component` is written
 * into it. Returns whether the interpreter ran while the document was still
 * being loaded, the result, and the interpreters left once the CLI exited.
 */
async function startWaitingOnComponent(
  dir: string,
  component: string,
  env: Record<string, string> = {},
) {
  await new Deno.Command("mkfifo", { args: [join(dir, "Slow.md")] }).output();
  // A heap limit no other test's interpreter has: it marks this one's process.
  const heap = String(1_000_000 + Math.floor(Math.random() * 8_000_000));
  const marker = `--max-old-space-size=${heap}`;
  const child = spawnXmd(["workflow", "start", "--id=early", "doc.md"], {
    cwd: dir,
    env: { XMD_WORKFLOW_RUNS: join(dir, "runs"), XMD_WORKER_SHELL_HEAP_MIB: heap, ...env },
  });
  const output = child.output();
  let seen = false;
  for (let attempt = 0; attempt < 100 && !seen; attempt++) {
    seen = processes(marker, child.pid).length > 0;
    if (!seen) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  // Opening the FIFO for writing waits for the CLI to open it for reading.
  await Deno.writeTextFile(join(dir, "Slow.md"), component);
  const { code, stdout, stderr } = await output;
  const decoder = new TextDecoder();
  return {
    seen,
    code,
    stdout: decoder.decode(stdout),
    stderr: decoder.decode(stderr),
    // Any parent: one the CLI left behind is no longer its child once it exited.
    left: processes(marker),
  };
}

const DOC = "# Early\n\n<Slow />\n\n```sh exec\necho block ran\n```\n";

Deno.test("WF-170: xmd workflow start of a document showing a shell block has its interpreter running while the document still loads, and runs the block in it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "xmd-prestart-cli-" });
  try {
    await Deno.writeTextFile(join(dir, "doc.md"), DOC);
    const result = await startWaitingOnComponent(dir, "A slow component.\n");
    assert.equal(result.code, 0, result.stderr);
    assert.ok(result.seen, "the interpreter was running while the component was read");
    assert.equal(result.stdout, "# Early\n\nA slow component.\n\nblock ran\n");
    assert.match(result.stderr, /workflow status: completed\n$/);
    assert.deepEqual(result.left, []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("WF-170: xmd workflow start refused after its early interpreter started leaves no interpreter and no run", async () => {
  const dir = await Deno.makeTempDir({ prefix: "xmd-prestart-cli-refused-" });
  try {
    await Deno.writeTextFile(join(dir, "doc.md"), DOC);
    // The component invokes one that does not exist: the document is refused when it is checked.
    const result = await startWaitingOnComponent(dir, "<Missing />\n");
    assert.equal(result.code, 1);
    assert.ok(result.seen, "the interpreter was running while the component was read");
    assert.match(result.stderr, /^xmd: .*Unknown component <Missing>/);
    assert.equal(result.stdout, "");
    assert.deepEqual(result.left, []);
    // Nothing was created.
    await assert.rejects(Deno.stat(join(dir, "runs")), Deno.errors.NotFound);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("WF-190: xmd workflow start has its interpreter running before the workflow command reads anything: a start its runs folder refuses had one, and leaves none and no file behind", async () => {
  const dir = await Deno.makeTempDir({ prefix: "xmd-prestart-cli-dispatch-" });
  try {
    await Deno.writeTextFile(join(dir, "doc.md"), DOC);
    // A relative runs folder: the workflow command refuses it once the document is loaded, and
    // read it before it started an interpreter until the dispatch started one.
    const result = await startWaitingOnComponent(dir, "A slow component.\n", {
      XMD_WORKFLOW_RUNS: "runs",
    });
    assert.equal(result.code, 1);
    assert.ok(result.seen, "the interpreter was running while the component was read");
    assert.match(result.stderr, /^xmd: XMD_WORKFLOW_RUNS must be an absolute path/);
    assert.equal(result.stdout, "");
    assert.deepEqual(result.left, []);
    assert.deepEqual([...Deno.readDirSync(dir)].map((entry) => entry.name).sort(), [
      "Slow.md",
      "doc.md",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("WS-37: xmd workflow start killed with SIGKILL while its block computes leaves no interpreter running, long before the block's own time limit", async () => {
  const dir = await Deno.makeTempDir({ prefix: "xmd-prestart-cli-killed-" });
  const heap = String(1_000_000 + Math.floor(Math.random() * 8_000_000));
  const marker = `--max-old-space-size=${heap}`;
  try {
    // A block that ends in a loop that never yields (so never reads stdin) nor ends by itself;
    // its time limit is an hour.
    await Deno.writeTextFile(
      join(dir, "doc.md"),
      "# Killed\n\n```sh exec timeout=1h\necho computing\nwhile :; do :; done\n```\n",
    );
    const child = spawnXmd(["workflow", "start", "--id=killed", "doc.md"], {
      cwd: dir,
      env: { XMD_WORKFLOW_RUNS: join(dir, "runs"), XMD_WORKER_SHELL_HEAP_MIB: heap },
    });
    // The block has started once its first line has streamed through the CLI, whole (MDX-64).
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let stdout = "";
    while (!stdout.includes("computing\n")) {
      const { value, done } = await reader.read();
      assert.equal(done, false, `the CLI ended before the block streamed: ${stdout}`);
      stdout += value;
    }
    const interpreters = processes(marker, child.pid);
    assert.equal(interpreters.length, 1);
    // The loop runs once the interpreter has spent half a second of CPU after the line; a host
    // killed before the loop would leave an interpreter that reads stdin's end and exits.
    const spent = cpuTicks(interpreters[0]);
    while (cpuTicks(interpreters[0]) < spent + 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    child.kill("SIGKILL");
    assert.equal((await child.status).signal, "SIGKILL");
    await reader.cancel();
    await child.stderr.cancel();
    // Without its host the interpreter stops at a statement boundary; before, it computed on
    // until the hour was up. Waited for, at most a minute, so a regression fails, not hangs.
    let left = processes(marker);
    for (let attempt = 0; attempt < 600 && left.length > 0; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      left = processes(marker);
    }
    assert.deepEqual(left, [], "the interpreter still runs without its host");
  } finally {
    // A failed run of this test leaves no process computing behind it.
    for (const pid of processes(marker)) Deno.kill(pid, "SIGKILL");
    await Deno.remove(dir, { recursive: true });
  }
});
