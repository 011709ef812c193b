/**
 * What one live `<File>` effect's transaction costs, counted on a real run
 * database (WAL, `synchronous=FULL`) in a temp dir (WS-100, WS-101): the
 * transaction statements SQLite is given, the SQL statements of the
 * effect, and that what they leave is what they left before (the same
 * root as a full publication, a refusal changing no Workspace row).
 */
import assert from "node:assert/strict";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { join } from "node:path";
import { type Description, disabledSecretGate, Journal } from "@xmd/core";
import { EffectTransactions } from "../execution/effect-transactions.ts";
import { WorkspaceFileSystem } from "../execution/workspace-file-system.ts";
import { initializeSchema } from "../store/schema.ts";
import { RunStore } from "../store/run-store.ts";
import { liveRootOf } from "../workspace/live-root.ts";
import { Workspace } from "../workspace/workspace.ts";
import { nativeSha256Hex } from "./native-sha256.ts";
import { NodeSqliteSeam } from "./node-sqlite-seam.ts";

/** The statements one connection ran: transaction control (`exec`) and prepared (`all`). */
interface Counted {
  control: string[];
  statements: string[];
}

/** `db`, recording every `exec` and every prepared statement's `all`. */
function counting(db: DatabaseSync, counted: Counted): DatabaseSync {
  const own = <T extends object>(target: T, prop: string | symbol) => {
    const value = Reflect.get(target, prop, target);
    return typeof value === "function" ? value.bind(target) : value;
  };
  return new Proxy(db, {
    get(target, prop) {
      if (prop === "exec") {
        return (sql: string) => {
          counted.control.push(sql);
          return target.exec(sql);
        };
      }
      if (prop === "prepare") {
        return (sql: string) =>
          new Proxy(target.prepare(sql), {
            get(statement: StatementSync, name) {
              if (name !== "all") return own(statement, name);
              return (...params: never[]) => {
                counted.statements.push(sql);
                return statement.all(...params);
              };
            },
          });
      }
      return own(target, prop);
    },
  });
}

/** A running run on a counted connection, with a journal wired as `executeRun` wires it. */
async function withCountedRun(
  fn: (run: {
    path: string;
    seam: NodeSqliteSeam;
    store: RunStore;
    journal: Journal;
    fs: WorkspaceFileSystem;
    counted: Counted;
  }) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "xmd-effect-cost-" });
  try {
    const path = join(dir, "run.sqlite");
    const db = new DatabaseSync(path);
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = FULL");
    const counted: Counted = { control: [], statements: [] };
    using seam = new NodeSqliteSeam(counting(db, counted), "the counted run");
    initializeSchema(seam);
    const store = new RunStore(seam, "the counted run");
    const execution = store.create({
      id: "counted",
      document: "doc.md",
      target: null,
      definitionHash: "0".repeat(64),
      props: {},
      propsHash: "0".repeat(64),
      sources: [{ label: "doc.md", text: "<File />\n", root: true }],
    });
    const effects = new EffectTransactions(store, disabledSecretGate, nativeSha256Hex);
    const journal = await Journal.open({
      readAll: () => Promise.resolve(store.events().map((entry) => entry.event)),
      append: (event) => effects.append(execution, event),
      beginEffect: (_coroutine, description) => effects.begin(description),
      abandonEffect: () => effects.rollback(),
    }, effects.eventGate());
    const workspace = new Workspace(seam, { sha256: nativeSha256Hex });
    const fs = effects.wrapFileSystem(new WorkspaceFileSystem(workspace)) as WorkspaceFileSystem;
    await fn({ path, seam, store, journal, fs, counted });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const write = (path: string): Description => ({ type: "file.write", name: `File ${path}`, path });

/** Every row of the Workspace tables, over a connection of its own. */
function workspaceRows(path: string): string {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    return JSON.stringify(
      ["ws_chunk", "ws_inode", "ws_dirent", "ws_object"].map((table) =>
        db.prepare(`SELECT * FROM ${table} ORDER BY 1, 2`).all()
      ),
      (_key, value) => value instanceof Uint8Array ? [...value] : value,
    );
  } finally {
    db.close();
  }
}

Deno.test("WS-100 a <File> effect's transaction takes no savepoint; a discarded one begins again after its ROLLBACK", async () => {
  await withCountedRun(async ({ path, store, journal, fs, counted }) => {
    await journal.effect("root", write("d/e/a.txt"), async () => {
      await fs.writeText("d/e/a.txt", "first");
      return { status: "ok", value: null };
    });
    counted.control.length = 0;
    await journal.effect("root", write("d/e/a.txt"), async () => {
      await fs.writeText("d/e/a.txt", "second");
      return { status: "ok", value: null };
    });
    assert.deepEqual(counted.control, ["BEGIN IMMEDIATE", "COMMIT"]);

    const before = workspaceRows(path);
    const root = store.record().root;
    counted.control.length = 0;
    await journal.effect("root", write("d/e/b.txt"), async () => {
      await fs.writeText("d/e/b.txt", "discarded");
      await fs.writeText("d/e/a.txt", "discarded too");
      return { status: "err", error: { name: "Error", message: "the effect failed" } };
    });
    assert.deepEqual(counted.control, ["BEGIN IMMEDIATE", "ROLLBACK", "BEGIN IMMEDIATE", "COMMIT"]);
    assert.equal(workspaceRows(path), before, "the failed effect's writes are gone");
    const record = store.record();
    assert.equal(record.eventCount, 3, "its failed Yield is committed");
    assert.equal(record.root, root, "with the previous root");
  });
});

Deno.test("WS-101 a <File> overwrite two folders deep reads no inode of its own and marks its folders in two statements", async () => {
  await withCountedRun(async ({ seam, store, journal, fs, counted }) => {
    // The first write creates the folders; the second rebuilds their trees from the stored ones.
    for (const text of ["first", "second", "third"]) {
      counted.statements.length = 0;
      await journal.effect("root", write("d/e/a.txt"), async () => {
        await fs.writeText("d/e/a.txt", text);
        return { status: "ok", value: null };
      });
    }
    const marks = counted.statements.filter((sql) => /SET hash = NULL/.test(sql));
    assert.deepEqual(marks, ["UPDATE ws_inode SET hash = NULL WHERE ino IN (?, ?, ?)"]);
    assert.ok(!counted.statements.includes("SELECT * FROM ws_inode WHERE ino = ?"));
    // The path (3 names), the chunk, the content, the marks (2), publication (3 entries, 4 objects,
    // 4 hashes, the root's inode), the event's fence and row.
    assert.equal(counted.statements.length, 21, counted.statements.join("\n"));
    assert.equal(store.record().root, liveRootOf(seam, "the counted run", nativeSha256Hex));
    assert.equal(new Workspace(seam).readFile("/d/e/a.txt").length, "third".length);
  });
});

Deno.test("WS-29 a refused <File> write, without a savepoint of its own, changes no Workspace row", async () => {
  await withCountedRun(async ({ path, store, journal, fs }) => {
    await journal.effect("root", write("d/a.txt"), async () => {
      await fs.writeText("d/a.txt", "alpha");
      return { status: "ok", value: null };
    });
    const before = workspaceRows(path);
    const root = store.record().root;
    for (const [target, code] of [["d", "EISDIR"], ["d/a.txt/b.txt", "ENOTDIR"]]) {
      const settled = await journal.effect("root", write(target), async () => {
        try {
          await fs.writeText(target, "refused");
          return { status: "ok", value: null };
        } catch (error) {
          const { name, message } = error as Error;
          return { status: "err", error: { name, message, code } };
        }
      });
      assert.equal(settled.result.status, "err", target);
      assert.match(JSON.stringify(settled.result), new RegExp(code));
    }
    assert.equal(workspaceRows(path), before);
    assert.equal(store.record().root, root);
    assert.equal(store.record().eventCount, 3);
  });
});
