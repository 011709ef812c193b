/**
 * A run's props live in their own row (WF-150): the run row, which every
 * append rewrites, stays one database page however large the props are, and
 * the props read back whole for a resume. Real run databases in a temp dir,
 * read back over SQLite (`dbstat` counts each table's pages, overflow pages
 * included).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { type JsonObject, loadProgram } from "@xmd/core";
import { LocalWorkflowHost } from "./local-workflow-host.ts";

const DOCUMENT = [
  '<Each items={props.items.slice(0, 3)} as="i">',
  "<File path={`d/${i.n}.txt`}>{i.word}</File>",
  "</Each>",
  "",
  '<Elicit as="go" schema={{ type: "boolean" }}>Go on?</Elicit>',
  "",
  "last {props.items[props.items.length - 1].n} of {props.items.length}",
  "",
].join("\n");

/** `count` items of about 40 bytes each. */
function items(count: number): JsonObject {
  return { items: Array.from({ length: count }, (_, n) => ({ n, word: `word-${n}-`.repeat(2) })) };
}

/** Pages of each table of the run database (its rows and their overflow pages). */
function pages(path: string): Map<string, number> {
  using db = new DatabaseSync(path, { readOnly: true });
  const rows = db.prepare("SELECT name, count(*) AS pages FROM dbstat GROUP BY name").all();
  return new Map(rows.map((row) => [String(row.name), Number(row.pages)]));
}

Deno.test("WF-150: the run row every append rewrites is one page with a few props or over a megabyte of them, and the props read back whole", async () => {
  const dir = await Deno.makeTempDir({ prefix: "xmd-props-storage-" });
  try {
    const program = await loadProgram(
      { file: "doc.md", text: DOCUMENT },
      () => Promise.resolve(undefined),
    );
    const host = new LocalWorkflowHost(join(dir, "runs"));
    let out = "";
    const io = {
      stdout: (text: string) => out += text,
      stderr: () => {},
      onRun: () => {},
      signal: new AbortController().signal,
    };
    const sizes = { small: 3, large: 30_000 };
    for (const [id, count] of Object.entries(sizes)) {
      const props = items(count);
      const started = await host.start({ id, program, props }, io);
      assert.equal(started.status, "suspended");
      assert.equal((await host.inspect(id)).record.eventCount, sizes.small + 2);
      const tables = pages(host.pathOf(id));
      assert.equal(tables.get("run"), 1, `the run row of ${id} props fits in one page`);
      {
        using db = new DatabaseSync(host.pathOf(id), { readOnly: true });
        const stored = db.prepare("SELECT value FROM props").all();
        assert.deepEqual(stored.map((row) => JSON.parse(String(row.value))), [props]);
      }
      if (id === "large") {
        // About 1.3 MB of props: hundreds of pages, none of them the run row's.
        assert.ok(tables.get("props")! > 200, `${tables.get("props")} pages of props`);
      }
      await host.answer(id, started.pendingSuspension!.suspensionId, true, true);
      out = "";
      // The resume verifies the props against their digest (WF-45) and renders from them.
      const resumed = await host.resume(id, io);
      assert.equal(resumed.status, "completed");
      assert.match(out, new RegExp(`last ${count - 1} of ${count}`));
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
