/**
 * A run writes only its own files (WF-180): SQLite's temporary files (an
 * effect's savepoint journal once it outgrows 64 KiB) stay in memory, so a
 * long run creates nothing in `SQLITE_TMPDIR`, `$TMPDIR` or `/var/tmp`. The
 * real `xmd workflow start` runs as a subprocess with `SQLITE_TMPDIR` set to
 * a watched, empty folder.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { spawnXmd } from "../../../cli/src/deno/_run-xmd.ts";
import { outcomeOf } from "./_test-workflow-cli.ts";
import { LocalWorkflowHost } from "./local-workflow-host.ts";

/** `steps` steps, each a new file of about 1 KiB in one folder: past about 70, a step's sub-journal (of its statements and savepoints) often outgrows 64 KiB. */
function longRun(steps: number): string {
  const prose = "the quick brown fox jumps over the lazy dog ".repeat(23);
  const items = Array.from({ length: steps }, (_, i) => i).join(", ");
  return [
    `<Let as="items" value={[${items}]} />`,
    "",
    '<Each items={items} as="i">',
    `<File path={\`s/\${i}.txt\`}>{i} ${prose}</File>`,
    "</Each>",
    "",
    "done",
    "",
  ].join("\n");
}

Deno.test("WF-180: a long run creates no SQLite temporary file outside its own files", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const temporary = join(dir, "sqlite-tmp");
    const runs = join(dir, "runs");
    await Deno.mkdir(temporary);
    await Deno.writeTextFile(join(dir, "long.md"), longRun(120));
    const watcher = Deno.watchFs(temporary);
    const created: string[] = [];
    const watching = (async () => {
      for await (const event of watcher) {
        if (event.kind === "create") created.push(...event.paths);
      }
    })();
    const outcome = await outcomeOf(
      spawnXmd(["workflow", "start", "--id=long", "long.md"], {
        cwd: dir,
        env: { XMD_WORKFLOW_RUNS: runs, SQLITE_TMPDIR: temporary },
      }),
    );
    // An event of the last file created reaches the watcher after the process ended: a file
    // made for the run's last steps is seen once a file made after it is.
    const marker = join(temporary, "marker");
    await Deno.writeTextFile(marker, "");
    while (!created.includes(marker)) await new Promise((resolve) => setTimeout(resolve, 10));
    watcher.close();
    await watching;
    assert.equal(outcome.code, 0, outcome.stderr);
    assert.match(outcome.stderr, /workflow status: completed/);
    assert.deepEqual(created, [marker]);
    assert.deepEqual([...Deno.readDirSync(temporary)].map((entry) => entry.name), ["marker"]);
    const history = await new LocalWorkflowHost(runs).history("long");
    assert.equal(history.record.status, "completed");
    // The props digest, 120 file writes and the root Close.
    assert.equal(history.events.length, 122);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
