/**
 * Schema version 2 on real files: what an append writes (JRN-70), and a
 * version-1 run database written by an earlier xmd, read unchanged and
 * upgraded by its first writer, across a SIGKILL on either side of the
 * upgrade's commit (JRN-71).
 *
 * `testdata/schema-1-suspended.sqlite` was written by xmd at schema version 1
 * (main at 7fd432d): `xmd workflow start --id=schema-one
 * ok.workspace-effects.md` in `testdata`, which suspends at its question
 * `go-5` after two `<File>` writes and an `sh` block.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";
import { sha256Hex } from "@xmd/core";
import { testFolder } from "../../../core/src/deno/_test-temp-folder.ts";
import { RunStore } from "../store/run-store.ts";
import { readDatabaseAt, sameFiles, workflow } from "./_test-workflow-cli.ts";
import { LocalWorkflowHost } from "./local-workflow-host.ts";
import { openRunDatabase } from "./run-database.ts";

const FIXTURE = fileURLToPath(new URL("../../testdata/schema-1-suspended.sqlite", import.meta.url));
const ID = "schema-one";
const ANSWER = ["answer", ID, "go-5", '{"ok":true}'];

/** The header's `user_version` and the `schema_version` row, as SQLite reads them. */
function versions(path: string): { header: number; row: string } {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const header = Number(db.prepare("PRAGMA user_version").get()!.user_version);
    const row = String(
      db.prepare("SELECT value FROM xmd_meta WHERE key = 'schema_version'").get()!.value,
    );
    return { header, row };
  } finally {
    db.close();
  }
}

/** A runs folder holding a copy of the version-1 run; its database path. */
async function versionOneRun(): Promise<{ runs: string; path: string }> {
  const runs = await testFolder("xmd-schema-one-");
  const path = new LocalWorkflowHost(runs).pathOf(ID);
  await Deno.copyFile(FIXTURE, path);
  return { runs, path };
}

/** Answers and resumes the run; checks it completed, upgraded, and exports its Workspace. */
async function answerToCompletion(runs: string, path: string): Promise<void> {
  const answered = await workflow(runs, ANSWER);
  assert.equal(answered.code, 0, answered.stderr);
  const resumed = await workflow(runs, ["resume", ID]);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.match(resumed.stdout, /AB: alphabetathree\ngamma true/);
  assert.deepEqual(versions(path), { header: 2, row: "2" });
  const history = await workflow(runs, ["history", ID, "--json"]);
  assert.equal(history.code, 0, history.stderr);
  const record = JSON.parse(history.stdout);
  const events = record.events;
  assert.equal(record.status, "completed");
  // The current root is the last event's: the one the live Workspace was verified at on resume.
  assert.equal(record.root, events.at(-1).root);
  assert.equal(record.eventCount, events.length);
  const exported = join(runs, "export");
  const exportedOutcome = await workflow(runs, ["export", ID, exported]);
  assert.equal(exportedOutcome.code, 0, exportedOutcome.stderr);
  assert.equal(await Deno.readTextFile(join(exported, "notes", "c.txt")), "gamma true");
}

Deno.test("JRN-71: a run database written at schema version 1 is read unchanged, then upgraded by its first writer and answered to completion", async () => {
  const { runs, path } = await versionOneRun();
  try {
    assert.deepEqual(versions(path), { header: 1, row: "1" });
    const before = await readDatabaseAt(path);
    const status = await workflow(runs, ["status", ID]);
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout + status.stderr, /suspended/);
    const history = await workflow(runs, ["history", ID, "--json"]);
    assert.equal(history.code, 0, history.stderr);
    const record = JSON.parse(history.stdout);
    assert.equal(record.status, "suspended");
    assert.equal(record.root, record.events.at(-1).root);
    assert.equal((await workflow(runs, ["list"])).code, 0);
    assert.deepEqual(sameFiles(before, await readDatabaseAt(path)), [], "reading changed the file");
    await answerToCompletion(runs, path);
  } finally {
    await Deno.remove(runs, { recursive: true });
  }
});

for (const when of ["before", "after"] as const) {
  Deno.test(`JRN-71: a writer SIGKILLed ${when} the upgrade commits leaves version ${when === "before" ? 1 : 2}; the next answer completes the run`, async () => {
    const { runs, path } = await versionOneRun();
    try {
      const killed = await workflow(runs, ANSWER, { XMD_FAILPOINT: `upgrade:${when}` });
      assert.equal(killed.signal, "SIGKILL", killed.stderr);
      assert.equal(versions(path).row, when === "before" ? "1" : "2");
      const status = await workflow(runs, ["status", ID]);
      assert.equal(status.code, 0, status.stderr);
      assert.match(status.stdout + status.stderr, /suspended/);
      await answerToCompletion(runs, path);
    } finally {
      await Deno.remove(runs, { recursive: true });
    }
  });
}

Deno.test("JRN-70: on a real run database an append writes no page of the run table", async () => {
  const dir = await testFolder("xmd-appends-");
  try {
    const path = join(dir, "run.sqlite");
    const opened = await openRunDatabase(path, "the test run", { create: true });
    using seam = opened!.seam;
    // Every frame an append writes stays in the log, to be read back.
    seam.exec("PRAGMA wal_autocheckpoint = 0");
    const store = new RunStore(seam, "the test run");
    const execution = store.create({
      id: "appends",
      document: "a.md",
      target: null,
      definitionHash: sha256Hex("definition"),
      props: {},
      propsHash: sha256Hex("{}"),
      sources: [{ label: "a.md", text: "A.\n", root: true }],
    });
    const from = Deno.statSync(`${path}-wal`).size;
    for (let n = 1; n <= 20; n++) {
      store.append(execution, {
        type: "yield",
        coroutineId: "root",
        description: { type: "log", name: `<Log> a.md:${n}:1` },
        result: { status: "ok", value: n },
      });
    }
    const wal = await Deno.readFile(`${path}-wal`);
    const view = new DataView(wal.buffer);
    const pageSize = view.getUint32(8);
    const written = new Set<number>();
    for (let at = from; at + 24 + pageSize <= wal.length; at += 24 + pageSize) {
      written.add(view.getUint32(at));
    }
    const pagesOf = (table: string) =>
      seam.exec("SELECT pageno FROM dbstat WHERE name = ?", table).map((row) => Number(row.pageno));
    assert.ok(pagesOf("event").some((page) => written.has(page)), "the appends wrote events");
    assert.deepEqual(pagesOf("run").filter((page) => written.has(page)), []);
    assert.equal(store.record().eventCount, 20);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
