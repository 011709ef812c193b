/**
 * `xmd workflow start` starts Worker Shell's interpreter before it loads the
 * document when the root document visibly holds a shell block (WF-170), and
 * a start refused once it has leaves no interpreter behind. The CLI runs as a
 * real subprocess; its document needs a component that is a FIFO, so the
 * start waits in the document's load until the test writes the component,
 * and the interpreter is looked for meanwhile among the CLI's children in
 * /proc, by a heap limit of its own (`XMD_WORKER_SHELL_HEAP_MIB`).
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
