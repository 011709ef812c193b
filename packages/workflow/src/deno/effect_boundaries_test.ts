/**
 * The executor's storage, explicit (WS-61..WS-63): a Workspace effect's
 * transaction is held from the moment the journal begins the effect, an
 * abandoned effect keeps nothing, and a seam that cannot hold a transaction
 * is refused before anything is written; a Workspace effect's event is
 * scanned with what the effect wrote (WS-64). Real run databases in temp dirs.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import {
  createSecretGate,
  type Description,
  disabledSecretGate,
  Journal,
  SecretDetectedError,
  type SecretGate,
} from "@xmd/core";
import { HeldTransactionRequiredError } from "../contracts/workflow-errors.ts";
import { EffectTransactions } from "../execution/effect-transactions.ts";
import { executeRun } from "../execution/execute-run.ts";
import { WorkspaceFileSystem } from "../execution/workspace-file-system.ts";
import type { SqlSeam } from "../sql/sql-seam.ts";
import { RunStore } from "../store/run-store.ts";
import { liveRootOf } from "../workspace/live-root.ts";
import { Workspace } from "../workspace/workspace.ts";
import { type CreatedRun, dumpDatabase, withCreatedRun } from "./_test-executor-run.ts";
import { nativeSha256Hex } from "./native-sha256.ts";

const DOCUMENT = '<File path="a.txt">alpha</File>\n';

/** Whether another connection could take the database's write lock now. */
function writeLockFree(path: string): boolean {
  const other = new DatabaseSync(path, { timeout: 0 });
  try {
    other.exec("BEGIN IMMEDIATE");
    other.exec("ROLLBACK");
    return true;
  } catch (error) {
    if (!/locked|busy/i.test(String(error))) throw error;
    return false;
  } finally {
    other.close();
  }
}

/** A journal over `run`'s store whose stream brackets effects as `executeRun`'s does. */
async function journalOf(run: CreatedRun) {
  const effects = new EffectTransactions(run.store, disabledSecretGate, nativeSha256Hex);
  const journal = await Journal.open({
    readAll: () => Promise.resolve(run.store.events().map((entry) => entry.event)),
    append: (event) => effects.append(run.execution, event),
    beginEffect: (_coroutine, description) => effects.begin(description),
    abandonEffect: () => effects.rollback(),
  }, disabledSecretGate);
  const fs = effects.wrapFileSystem(new WorkspaceFileSystem(new Workspace(run.seam)));
  return { journal, fs };
}

const write = (path: string): Description => ({ type: "file.write", name: `File ${path}`, path });

Deno.test("WS-61 a Workspace effect holds its transaction from the moment the journal begins it; other effects do not", async () => {
  await withCreatedRun(DOCUMENT, async (run) => {
    const { journal, fs } = await journalOf(run);
    const seen: boolean[] = [];
    await journal.effect("root", { type: "props", name: "props doc.md", sha256: "0" }, () => {
      seen.push(writeLockFree(run.path));
      return Promise.resolve({ status: "ok", value: null });
    });
    await journal.effect("root", write("a.txt"), async () => {
      // Before the effect's first Workspace call: already its transaction.
      seen.push(writeLockFree(run.path));
      await fs.writeText("a.txt", "alpha");
      return { status: "ok", value: null };
    });
    seen.push(writeLockFree(run.path));
    assert.deepEqual(seen, [true, false, true]);
    assert.equal(run.store.record().eventCount, 2);
  });
});

Deno.test("WS-61 a Workspace call outside an effect is refused and writes nothing", async () => {
  await withCreatedRun(DOCUMENT, async (run) => {
    const { fs } = await journalOf(run);
    const before = dumpDatabase(run.path);
    await assert.rejects(fs.writeText("a.txt", "alpha"), /outside a Workspace effect/);
    assert.equal(dumpDatabase(run.path), before);
  });
});

Deno.test("WS-62 an abandoned effect keeps nothing, and the effect after it does not carry its writes", async () => {
  await withCreatedRun(DOCUMENT, async (run) => {
    const { journal, fs } = await journalOf(run);
    const lost = new Error("the effect's provider died");
    await assert.rejects(
      journal.effect("root", write("a.txt"), async () => {
        await fs.writeText("a.txt", "alpha");
        throw lost;
      }),
      (error) => error === lost,
    );
    assert.ok(writeLockFree(run.path), "the abandoned effect's transaction is gone");
    await journal.effect("root", write("b.txt"), async () => {
      await fs.writeText("b.txt", "beta");
      return { status: "ok", value: null };
    });
    const record = run.store.record();
    assert.equal(record.eventCount, 1);
    assert.equal(liveRootOf(run.seam, "the run", nativeSha256Hex), record.root);
    const names = run.seam.exec("SELECT name FROM ws_dirent ORDER BY name").map((row) => row.name);
    assert.deepEqual(names, ["b.txt"]);
  });
});

Deno.test("WS-63 an execution over a seam that cannot hold a transaction is refused before anything is read or written", async () => {
  await withCreatedRun(DOCUMENT, async (run) => {
    const before = dumpDatabase(run.path);
    // The seam as a Durable Object's is: statements and nested transactions, no `hold`.
    const unheld: SqlSeam = {
      exec: (sql, ...params) => run.seam.exec(sql, ...params),
      transaction: (fn, label) => run.seam.transaction(fn, label),
    };
    const store = new RunStore(unheld, 'run "executor"');
    await assert.rejects(
      executeRun({
        store,
        execution: run.execution,
        gate: createSecretGate(),
        stdout: () => {},
        stderr: () => {},
        signal: new AbortController().signal,
      }),
      HeldTransactionRequiredError,
    );
    assert.equal(dumpDatabase(run.path), before);
    assert.equal(run.store.record().status, "running");
  });
});

/** The real gate, counting its scans. */
function countingGate(): SecretGate & { scans: string[] } {
  const inner = createSecretGate();
  const scans: string[] = [];
  return {
    scans,
    check: (text, where) => {
      scans.push(text);
      return inner.check(text, where);
    },
  };
}

/** A journal wired as `executeRun` wires it: its events pass the effects' `eventGate`. */
async function gatedJournalOf(run: CreatedRun, gate: SecretGate) {
  const effects = new EffectTransactions(run.store, gate, nativeSha256Hex);
  const journal = await Journal.open({
    readAll: () => Promise.resolve(run.store.events().map((entry) => entry.event)),
    append: (event) => effects.append(run.execution, event),
    beginEffect: (_coroutine, description) => effects.begin(description),
    abandonEffect: () => effects.rollback(),
  }, effects.eventGate());
  const fs = effects.wrapFileSystem(new WorkspaceFileSystem(new Workspace(run.seam)));
  return { journal, fs };
}

Deno.test("WS-64 a Workspace effect's event and what it wrote pass the gate in one scan; other events at once", async () => {
  await withCreatedRun(DOCUMENT, async (run) => {
    const gate = countingGate();
    const { journal, fs } = await gatedJournalOf(run, gate);
    await journal.effect("root", { type: "props", name: "props doc.md", sha256: "0" }, () => {
      return Promise.resolve({ status: "ok", value: null });
    });
    assert.equal(gate.scans.length, 1, "the props event is scanned when it is appended");
    await journal.effect("root", write("notes/a.txt"), async () => {
      await fs.writeText("notes/a.txt", "alpha beta gamma");
      return { status: "ok", value: null };
    });
    assert.equal(gate.scans.length, 2, "one scan for the event, the names and the content");
    const scan = gate.scans[1];
    assert.ok(scan.startsWith('{"type":"yield"'), "the event comes first");
    for (const part of ["notes", "a.txt", "alpha beta gamma"]) assert.ok(scan.includes(part), part);
    assert.equal(run.store.record().eventCount, 2);
  });
});

Deno.test("WS-64 a secret in a Workspace effect's event is refused as the event's, keeping nothing", async () => {
  await withCreatedRun(DOCUMENT, async (run) => {
    const { journal, fs } = await gatedJournalOf(run, createSecretGate());
    const before = dumpDatabase(run.path);
    // Built by concatenation so this repository's own files do not trip secret scanners.
    const path = `notes/${"ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A"}.txt`;
    const description: Description = { type: "file.write", name: "File doc.md:3:1", path };
    await assert.rejects(
      journal.effect("root", description, async () => {
        await fs.writeText(path, "alpha");
        return { status: "ok", value: null };
      }),
      (error) =>
        error instanceof SecretDetectedError &&
        error.message.startsWith('Cannot persist journal event "File doc.md:3:1": ') &&
        !error.message.includes("aB3dE5"),
    );
    assert.ok(writeLockFree(run.path), "the refused effect's transaction is gone");
    assert.equal(dumpDatabase(run.path), before);
  });
});
