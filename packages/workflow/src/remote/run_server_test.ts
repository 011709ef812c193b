import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { canonicalJson, type JournalEvent, sha256Hex } from "@xmd/core/protocol";
import { nativeSha256Hex } from "../deno/native-sha256.ts";
import { NodeSqliteSeam } from "../deno/node-sqlite-seam.ts";
import { dump } from "../store/run_store_contract.ts";
import { fileObject, treeObject } from "../workspace/root-format.ts";
import { verifyRoot } from "../workspace/verify-root.ts";
import { walkRoot } from "../workspace/walk-root.ts";
import {
  ADMISSION,
  buildRoot,
  call,
  chunkFrame,
  commitRoot,
  EMPTY_ROOT,
  frame,
  fuzzCorpus,
  type Lane,
  logEvent,
  newRun,
  refusedCode,
  type Send,
  sendChunks,
} from "./_test-remote.ts";
import {
  decodeReply,
  decodeRequest,
  encodeMessage,
  type Frontier,
  MAX_MESSAGE_BYTES,
  MAX_STAGED_BYTES,
} from "./frames.ts";
import { definitionHashOf } from "./new-run-checks.ts";
import { REMOTE_ERROR_CODES, RemoteProtocolError } from "./remote-protocol-error.ts";
import type { Admission } from "./remote-table.ts";
import { RunServer } from "./run-server.ts";

/** One run's database file and the server over it, as a Durable Object holds them. */
class Harness implements Disposable {
  readonly path: string;
  readonly seam: NodeSqliteSeam;
  server: RunServer;

  constructor(dir: string, admission: Admission = ADMISSION) {
    this.path = `${dir}/run.db`;
    this.seam = new NodeSqliteSeam(new DatabaseSync(this.path));
    // The native SHA-256, as a Durable Object's node:crypto one: it names everything the same.
    this.server = new RunServer(this.seam, admission, { now: clock(), sha256: nativeSha256Hex });
  }

  /** A new connection: its transport and its close. */
  connect(): { send: Send; close(): void } {
    const connection = this.server.connect();
    return {
      send: (message) => Promise.resolve(connection.receive(message)),
      close: () => connection.close(),
    };
  }

  /** The dump and the file's bytes. */
  state(): { rows: string; bytes: Uint8Array } {
    return { rows: dump(this.seam), bytes: Deno.readFileSync(this.path) };
  }

  /** Asserts `fn` is refused with `code` and changes neither a row nor a byte of the file. */
  async refuses(code: string, fn: () => Promise<string>): Promise<void> {
    const before = this.state();
    assert.equal(await fn(), code);
    const after = this.state();
    assert.equal(after.rows, before.rows);
    assert.deepEqual(after.bytes, before.bytes);
  }

  [Symbol.dispose](): void {
    this.seam[Symbol.dispose]();
  }
}

function clock(): () => number {
  let now = 1_700_000_000_000;
  return () => now++;
}

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "xmd-remote-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** A harness whose run exists and is owned by `owner` (execution 1, no events). */
async function created(dir: string) {
  const h = new Harness(dir);
  const owner = h.connect();
  await call(owner.send, { type: "hello", role: "executor" });
  const { frontier } = await call(owner.send, { type: "create", run: newRun() });
  return { h, owner, frontier };
}

Deno.test("RM-1, RM-4: frames round-trip, and hostile bytes are refused only with RemoteProtocolError", () => {
  const payload = new Uint8Array([1, 2, 3]);
  const message = frame(
    { type: "put-chunks", chunks: [{ hash: sha256Hex(payload), length: 3 }] },
    payload,
  );
  const decoded = decodeRequest(message);
  assert.equal(decoded.request.type, "put-chunks");
  assert.deepEqual([...decoded.payload], [1, 2, 3]);
  assert.equal(new DataView(message.buffer).getUint32(0), message.length - 4 - 3);
  const codes = new Set<string>();
  for (let cut = 0; cut < message.length; cut++) {
    try {
      decodeRequest(message.slice(0, cut));
      assert.fail(`a frame cut at ${cut} decoded`);
    } catch (error) {
      assert.ok(error instanceof RemoteProtocolError, String(error));
      codes.add(error.code);
    }
  }
  assert.deepEqual([...codes].sort(), ["protocol.malformed"]);
  for (let seed = 0; seed < 2000; seed++) {
    const bytes = crypto.getRandomValues(new Uint8Array(seed % 64));
    if (bytes.length >= 4) new DataView(bytes.buffer).setUint32(0, seed % (bytes.length - 3));
    try {
      decodeRequest(bytes);
    } catch (error) {
      assert.ok(error instanceof RemoteProtocolError && REMOTE_ERROR_CODES.includes(error.code));
    }
  }
  assert.throws(() => decodeRequest(new Uint8Array(MAX_MESSAGE_BYTES + 1)), {
    code: "protocol.too_large",
  });
  assert.throws(() => decodeRequest(encodeMessage({ v: 2, id: 1, type: "ping" })), {
    code: "protocol.version",
  });
  assert.throws(() => encodeMessage({}, new Uint8Array(MAX_MESSAGE_BYTES)), {
    code: "limit.message",
  });
});

Deno.test("RM-5: a refusal names the field, never the value sent", async () => {
  await withDir(async (dir) => {
    using h = new Harness(dir);
    const reader = h.connect();
    await call(reader.send, { type: "hello", role: "reader" });
    const secret = "ghp_" + "A".repeat(36);
    const { reply } = decodeReply(
      await reader.send(
        encodeMessage({ v: 1, id: 7, type: "read-events", from: secret, limit: 1 }),
      ),
    );
    assert.ok(reply.type === "error");
    assert.equal(reply.re, 7);
    assert.equal(reply.code, "protocol.malformed");
    assert.match(reply.message, /from field/);
    assert.ok(!reply.message.includes(secret));
    const unknown = decodeReply(
      await reader.send(encodeMessage({ v: 1, id: 8, type: "ping", [secret]: 1 })),
    );
    assert.ok(unknown.reply.type === "error" && !unknown.reply.message.includes(secret));
    const text = decodeReply(await reader.send("hello"));
    assert.ok(
      text.reply.type === "error" && text.reply.code === "protocol.text" && text.reply.re === null,
    );
  });
});

Deno.test("RM-6, RM-20: an empty database is initialized with xmd_remote; another admission is refused unchanged", async () => {
  await withDir(async (dir) => {
    {
      using h = new Harness(dir);
      const tables = h.seam.exec("SELECT name FROM sqlite_master WHERE type = 'table'").map((r) =>
        r.name
      );
      assert.ok(tables.includes("xmd_remote") && tables.includes("run"));
      const owner = h.connect();
      await call(owner.send, { type: "hello", role: "executor" });
      await call(owner.send, { type: "create", run: newRun() });
    }
    const before = Deno.readFileSync(`${dir}/run.db`);
    for (
      const other of [
        { ...ADMISSION, repositoryId: "R_other" },
        { ...ADMISSION, issueNodeId: "I_other" },
        { ...ADMISSION, githubHost: "ghe.example.com" },
      ]
    ) {
      using h = new Harness(dir, other);
      const connection = h.connect();
      assert.equal(
        await refusedCode(connection.send, frame({ type: "hello", role: "reader" })),
        "run.admission",
      );
      assert.equal(
        await refusedCode(connection.send, frame({ type: "hello", role: "executor" })),
        "run.admission",
      );
      // The socket stays usable: a ping is still answered.
      await call(connection.send, { type: "ping" });
    }
    assert.deepEqual(Deno.readFileSync(`${dir}/run.db`), before);
    {
      using seam = new NodeSqliteSeam(new DatabaseSync(`${dir}/run.db`));
      seam.exec("ALTER TABLE xmd_remote ADD COLUMN extra TEXT");
    }
    const altered = Deno.readFileSync(`${dir}/run.db`);
    using h = new Harness(dir);
    assert.equal(
      await refusedCode(h.connect().send, frame({ type: "hello", role: "executor" })),
      "db.corrupt",
    );
    assert.deepEqual(Deno.readFileSync(`${dir}/run.db`), altered);
  });
});

Deno.test("RM-7: the first executor owns the run; a second gets run.busy and changes nothing; readers read; closing frees it at once", async () => {
  await withDir(async (dir) => {
    const { h, owner } = await created(dir);
    using _ = h;
    const second = h.connect();
    await h.refuses(
      "run.busy",
      () => refusedCode(second.send, frame({ type: "hello", role: "executor" })),
    );
    const reader = h.connect();
    const hello = await call(reader.send, { type: "hello", role: "reader" });
    assert.equal(hello.epoch, null);
    assert.equal((await call(reader.send, { type: "read-run" })).run?.record.status, "running");
    owner.close();
    const acquired = await call(second.send, { type: "hello", role: "executor" });
    assert.equal(acquired.epoch, 2);
    // The closed owner's frames no longer reach the run.
    await h.refuses("executor.lost", () => refusedCode(owner.send, frame({ type: "cancel" })));
  });
});

Deno.test("RM-8: a running run found with no owner is closed interrupted (crashed) on acquisition", async () => {
  await withDir(async (dir) => {
    {
      const { h, frontier } = await created(dir);
      using _ = h;
      assert.equal(frontier.execution, 1);
    }
    // A new instance over the same file: the Durable Object restarted, its sockets gone.
    using h = new Harness(dir);
    const owner = h.connect();
    const hello = await call(owner.send, { type: "hello", role: "executor" });
    assert.equal(hello.epoch, 2);
    const run = (await call(owner.send, { type: "read-run" })).run;
    assert.equal(run?.record.status, "interrupted");
    assert.deepEqual(run?.record.stopReason, { kind: "host", code: "crashed" });
    assert.deepEqual(run?.executions.map((e) => e.outcome), ["interrupted"]);
    const begun = await call(owner.send, { type: "begin", expected: hello.frontier! });
    assert.equal(begun.frontier.execution, 2);
  });
});

Deno.test("RM-9: frames before hello, a second hello and a reader's mutations are refused and change nothing", async () => {
  await withDir(async (dir) => {
    const { h, owner, frontier } = await created(dir);
    using _ = h;
    const fresh = h.connect();
    await h.refuses("protocol.order", () => refusedCode(fresh.send, frame({ type: "read-run" })));
    await h.refuses(
      "protocol.order",
      () => refusedCode(owner.send, frame({ type: "hello", role: "reader" })),
    );
    const reader = h.connect();
    await call(reader.send, { type: "hello", role: "reader" });
    const built = buildRoot({ "a.txt": "a\n" });
    const { headers, payload } = chunkFrame(built.chunks);
    await h.refuses(
      "protocol.role",
      () => refusedCode(reader.send, frame({ type: "put-chunks", chunks: headers }, payload)),
    );
    await h.refuses("protocol.role", () =>
      refusedCode(
        reader.send,
        frame({ type: "commit", expected: frontier, event: logEvent(1), root: EMPTY_ROOT }),
      ));
    for (const type of ["cancel", "delete"] as const) {
      await h.refuses("protocol.role", () => refusedCode(reader.send, frame({ type })));
    }
  });
});

Deno.test("RM-10: a stale expected frontier is refused inside the transaction and changes nothing", async () => {
  await withDir(async (dir) => {
    const { h, owner, frontier } = await created(dir);
    using _ = h;
    const after = await commitRoot(owner.send, frontier, buildRoot({ "a.txt": "a\n" }));
    assert.equal(after.events, 1);
    for (const stale of [frontier, { ...after, execution: 2 }, { ...after, root: EMPTY_ROOT }]) {
      await h.refuses("frontier.stale", () =>
        refusedCode(
          owner.send,
          frame({ type: "commit", expected: stale, event: logEvent(2), root: after.root }),
        ));
      await h.refuses("frontier.stale", () =>
        refusedCode(
          owner.send,
          frame({ type: "settle", expected: stale, status: "completed", stopReason: null }),
        ));
    }
  });
});

Deno.test("RM-11: create checks the run id, the sources and both hashes, and refuses a second run", async () => {
  await withDir(async (dir) => {
    using h = new Harness(dir);
    const owner = h.connect();
    await call(owner.send, { type: "hello", role: "executor" });
    const run = newRun();
    const cases: [string, typeof run][] = [
      ["run.admission", { ...run, id: "another-run" }],
      ["run.conflict", { ...run, definitionHash: "0".repeat(64) }],
      ["run.conflict", { ...run, props: { version: "9" } }],
      ["protocol.malformed", { ...run, sources: [...run.sources, { ...run.sources[0] }] }],
      ["protocol.malformed", { ...run, sources: [{ ...run.sources[0], root: false }] }],
    ];
    for (const [code, bad] of cases) {
      await h.refuses(code, () => refusedCode(owner.send, frame({ type: "create", run: bad })));
    }
    const big = { ...run, sources: [{ ...run.sources[0], text: "x".repeat(2 * 1024 * 1024) }] };
    big.definitionHash = definitionHashOf(big.sources, null);
    await h.refuses(
      "limit.row",
      () => refusedCode(owner.send, frame({ type: "create", run: big })),
    );
    const { frontier } = await call(owner.send, { type: "create", run });
    assert.deepEqual(frontier, { execution: 1, events: 0, root: EMPTY_ROOT });
    await h.refuses("run.exists", () => refusedCode(owner.send, frame({ type: "create", run })));
  });
});

Deno.test("RM-12: put-chunks checks each digest, stores in its own transaction, and moves no root", async () => {
  await withDir(async (dir) => {
    const { h, owner, frontier } = await created(dir);
    using _ = h;
    const data = new TextEncoder().encode("chunk bytes");
    await h.refuses("chunk.digest", () =>
      refusedCode(
        owner.send,
        frame(
          { type: "put-chunks", chunks: [{ hash: sha256Hex("other"), length: data.length }] },
          data,
        ),
      ));
    await h.refuses("protocol.malformed", () =>
      refusedCode(
        owner.send,
        frame(
          { type: "put-chunks", chunks: [{ hash: sha256Hex(data), length: data.length + 1 }] },
          data,
        ),
      ));
    const stored = await call(owner.send, {
      type: "put-chunks",
      chunks: [{ hash: sha256Hex(data), length: data.length }],
    }, data);
    assert.equal(stored.stored, 1);
    const again = await call(owner.send, {
      type: "put-chunks",
      chunks: [{ hash: sha256Hex(data), length: data.length }],
    }, data);
    assert.equal(again.stored, 0);
    const run = (await call(owner.send, { type: "read-run" })).run;
    assert.deepEqual(run?.frontier, frontier);
  });
});

Deno.test("RM-14: a commit lands a Workspace (a file over 1 MiB, a symlink, nested directories) whole, readable back", async () => {
  await withDir(async (dir) => {
    const { h, owner, frontier } = await created(dir);
    using _ = h;
    const big = new Uint8Array(1024 * 1024 + 5).map((_, i) => i % 251);
    const built = buildRoot({
      "big.bin": big,
      docs: { "a.md": "# A\n", nested: { "b.txt": "b\n" } },
      link: { symlink: "docs/a.md" },
    });
    const after = await commitRoot(owner.send, frontier, built);
    assert.deepEqual(after, { execution: 1, events: 1, root: built.root });
    verifyRoot(h.seam, built.root, "the run");
    const paths = [...walkRoot(h.seam, built.root)].map((entry) => entry.path);
    assert.deepEqual(paths, [
      "big.bin",
      "docs",
      "docs/a.md",
      "docs/nested",
      "docs/nested/b.txt",
      "link",
    ]);
    const reader = h.connect();
    await call(reader.send, { type: "hello", role: "reader" });
    const objects = await call(reader.send, {
      type: "get-objects",
      hashes: [built.root, "0".repeat(64)],
    });
    assert.deepEqual(objects.objects, [built.objects[built.objects.length - 1]]);
    assert.deepEqual(objects.missing, ["0".repeat(64)]);
    const chunks = await call(reader.send, {
      type: "get-chunks",
      hashes: built.chunks.slice(0, 2).map((c) => c.hash),
    });
    assert.deepEqual(
      chunks.payload,
      new Uint8Array([...built.chunks[0].data, ...built.chunks[1].data]),
    );
    const events = await call(reader.send, { type: "read-events", from: 1, limit: 10 });
    assert.deepEqual(events.events.map((e) => [e.id, e.root]), [[1, built.root]]);
  });
});

Deno.test("RM-14: each commit check refuses its case and changes nothing", async () => {
  await withDir(async (dir) => {
    const { h, owner, frontier } = await created(dir);
    using _ = h;
    const built = buildRoot({ "a.txt": "a\n", sub: { "b.txt": "b\n" } });
    await sendChunks(owner.send, built);
    const [fileA, fileB, sub, root] = built.objects;
    const commit = (
      objects: { hash: string; text: string }[],
      rootHash = built.root,
      links?: string[][],
    ) =>
      refusedCode(
        owner.send,
        frame({
          type: "commit",
          expected: frontier,
          event: logEvent(1),
          root: rootHash,
          objects,
          links,
        }),
      );
    const forged = (text: string) => ({ hash: sha256Hex(text), text });
    // A tree naming a file where a directory should be.
    const wrongKind = forged(
      treeObject([{ name: "sub", kind: "dir", mode: 0o755, ref: fileA.hash }]),
    );
    const oversize = forged(fileObject(3, JSON.parse(fileA.text).chunks));
    const sizeTree = forged(
      treeObject([{ name: "a.txt", kind: "file", mode: 0o644, ref: oversize.hash }]),
    );
    const unsorted = '{"entries":[["b","file",420,"' + fileA.hash + '"],["a","file",420,"' +
      fileA.hash + '"]],"format":1}';
    const spaced = `{"chunks":${
      JSON.stringify(JSON.parse(fileA.text).chunks)
    }, "format":1,"size":2}`;
    const missingChunk = forged(fileObject(2, [sha256Hex("nowhere")]));
    const chunkTree = forged(
      treeObject([{ name: "x", kind: "file", mode: 0o644, ref: missingChunk.hash }]),
    );
    const cases: [string, () => Promise<string>][] = [
      [
        "object.digest",
        () => commit([fileA, fileB, sub, { hash: root.hash, text: `${root.text} ` }]),
      ],
      ["object.malformed", () => commit([forged(unsorted)], sha256Hex(unsorted))],
      ["object.malformed", () => commit([fileA, forged(spaced), sub, root])],
      ["object.missing", () => commit([fileB, sub, root])],
      ["object.missing", () => commit([fileA, wrongKind], wrongKind.hash)],
      ["object.missing", () => commit([fileA], fileA.hash)],
      ["object.missing", () => commit([missingChunk, chunkTree], chunkTree.hash)],
      ["object.size", () => commit([oversize, sizeTree], sizeTree.hash)],
      ["object.unreachable", () => commit([...built.objects, forged(fileObject(0, []))])],
      ["links.invalid", () => commit(built.objects, built.root, [["a.txt", "sub/b.txt"]])],
      ["links.invalid", () => commit(built.objects, built.root, [["a.txt", "sub"]])],
    ];
    for (const [code, fn] of cases) await h.refuses(code, fn);
    // The same owner, the same frontier: a sound commit still lands after all of them.
    const after = await commitRoot(owner.send, frontier, built);
    assert.equal(after.root, built.root);
  });
});

Deno.test("RM-14: a tree sent as a delta against a known base lands, rebuilt and checked; hard links are kept", async () => {
  await withDir(async (dir) => {
    const { h, owner, frontier } = await created(dir);
    using _ = h;
    const files: Record<string, string> = {};
    for (let i = 0; i < 40; i++) files[`f${String(i).padStart(2, "0")}.txt`] = `file ${i}\n`;
    const first = buildRoot(files);
    const one = await commitRoot(owner.send, frontier, first);
    const second = buildRoot({ ...files, "f07.txt": "changed\n", "g.txt": "file 3\n" });
    const changed = second.objects.filter((o) => !first.objects.some((f) => f.hash === o.hash));
    const fileObjects = changed.filter((o) => o.hash !== second.root);
    const changedFile = fileObjects.find((o) => o.text.includes('"size":8'))!;
    const g = first.objects.find((o) => o.text === fileObject(7, [sha256Hex("file 3\n")]))!;
    const delta = {
      hash: second.root,
      base: first.root,
      remove: [],
      set: [["f07.txt", "file", 0o644, changedFile.hash], ["g.txt", "file", 0o644, g.hash]] as [
        string,
        "file",
        number,
        string,
      ][],
    };
    await h.refuses(
      "object.digest",
      () =>
        refusedCode(
          owner.send,
          frame({
            type: "commit",
            expected: one,
            event: logEvent(2),
            root: second.root,
            objects: [...fileObjects, { ...delta, remove: ["f01.txt"] }],
          }),
        ),
    );
    await sendChunks(owner.send, second);
    const reply = await call(owner.send, {
      type: "commit",
      expected: one,
      event: logEvent(2),
      root: second.root,
      objects: [...fileObjects, delta],
      links: [["f03.txt", "g.txt"]],
    });
    assert.equal(reply.frontier.root, second.root);
    const row = h.seam.exec("SELECT base FROM ws_object WHERE hash = ?", second.root)[0];
    assert.equal(row.base, first.root);
    verifyRoot(h.seam, second.root, "the run");
    const run = (await call(owner.send, { type: "read-run" })).run;
    assert.deepEqual(run?.links, [["f03.txt", "g.txt"]]);
    // The next commit keeps the links only while they fit its root; a refused commit that sent
    // other links leaves them in force.
    const third = buildRoot({ ...files, "f07.txt": "changed\n" });
    await sendChunks(owner.send, third);
    await h.refuses(
      "frontier.stale",
      () =>
        refusedCode(
          owner.send,
          frame({
            type: "commit",
            expected: one,
            event: logEvent(3),
            root: third.root,
            objects: [third.objects[third.objects.length - 1]],
            links: [],
          }),
        ),
    );
    await h.refuses(
      "links.invalid",
      () =>
        refusedCode(
          owner.send,
          frame({
            type: "commit",
            expected: reply.frontier,
            event: logEvent(3),
            root: third.root,
            objects: [third.objects[third.objects.length - 1]],
          }),
        ),
    );
    const fourth = await call(owner.send, {
      type: "commit",
      expected: reply.frontier,
      event: logEvent(3),
      root: third.root,
      objects: [third.objects[third.objects.length - 1]],
      links: [],
    });
    assert.equal(fourth.frontier.events, 3);
  });
});

Deno.test("RM-13: objects staged ahead are checked on arrival, bounded, kept by a refused commit, and dropped on close", async () => {
  await withDir(async (dir) => {
    const { h, owner, frontier } = await created(dir);
    using _ = h;
    const built = buildRoot({ "a.txt": "a\n" });
    await sendChunks(owner.send, built);
    await h.refuses(
      "object.digest",
      () =>
        refusedCode(
          owner.send,
          frame({ type: "put-objects", objects: [{ hash: built.root, text: "{}" }] }),
        ),
    );
    const staged = await call(owner.send, { type: "put-objects", objects: built.objects });
    assert.equal(staged.staged, built.objects.reduce((sum, o) => sum + o.text.length, 0));
    await h.refuses(
      "frontier.stale",
      () =>
        refusedCode(
          owner.send,
          frame({
            type: "commit",
            expected: { ...frontier, events: 9 },
            event: logEvent(1),
            root: built.root,
          }),
        ),
    );
    const landed = await call(owner.send, {
      type: "commit",
      expected: frontier,
      event: logEvent(1),
      root: built.root,
    });
    assert.equal(landed.frontier.root, built.root);
    // Staged objects belong to one connection's acquisition.
    const next = buildRoot({ "b.txt": "b\n" });
    await sendChunks(owner.send, next);
    await call(owner.send, { type: "put-objects", objects: next.objects });
    owner.close();
    const successor = h.connect();
    const hello = await call(successor.send, { type: "hello", role: "executor" });
    const begun = await call(successor.send, { type: "begin", expected: hello.frontier! });
    await h.refuses(
      "object.missing",
      () =>
        refusedCode(
          successor.send,
          frame({ type: "commit", expected: begun.frontier, event: logEvent(2), root: next.root }),
        ),
    );
    // The staging bound: canonical file objects of 1.5 MiB each, five per frame.
    const chunkList = (n: number) =>
      Array.from({ length: 23_000 }, (_, i) => nativeSha256Hex(`${n}:${i}`));
    const large = Array.from({ length: 25 }, (_, n) => {
      const text = fileObject(23_000, chunkList(n));
      return { hash: nativeSha256Hex(text), text };
    });
    let refusal = "";
    for (let at = 0; at < large.length && refusal === ""; at += 5) {
      const { reply } = decodeReply(
        await successor.send(frame({ type: "put-objects", objects: large.slice(at, at + 5) })),
      );
      if (reply.type === "error") refusal = reply.code;
      else assert.ok(reply.type === "put-objects" && reply.staged <= MAX_STAGED_BYTES);
    }
    assert.equal(refusal, "limit.staged");
  });
});

Deno.test("RM-15, RM-16: a suspension names a question; a reader answers; the next execution consumes the answer", async () => {
  await withDir(async (dir) => {
    const { h, owner, frontier } = await created(dir);
    using _ = h;
    const request: JournalEvent = {
      type: "yield",
      coroutineId: "root",
      description: {
        type: "suspension_request",
        name: "<Elicit> release.md:3:1",
        as: "ok",
        suspensionId: "root:1",
        question: "Ship it?",
        schema: { type: "boolean" },
      },
      result: { status: "ok", value: null },
    };
    const one = (await call(owner.send, {
      type: "commit",
      expected: frontier,
      event: logEvent(1),
      root: EMPTY_ROOT,
    })).frontier;
    await h.refuses(
      "settle.invalid",
      () =>
        refusedCode(
          owner.send,
          frame({
            type: "settle",
            expected: one,
            status: "suspended",
            stopReason: { kind: "journal", eventId: 1 },
          }),
        ),
    );
    await h.refuses(
      "settle.invalid",
      () =>
        refusedCode(
          owner.send,
          frame({
            type: "settle",
            expected: one,
            status: "failed",
            stopReason: { kind: "journal", eventId: 5 },
          }),
        ),
    );
    const two =
      (await call(owner.send, { type: "commit", expected: one, event: request, root: EMPTY_ROOT }))
        .frontier;
    await call(owner.send, {
      type: "settle",
      expected: two,
      status: "suspended",
      stopReason: { kind: "journal", eventId: 2 },
    });
    const reader = h.connect();
    await call(reader.send, { type: "hello", role: "reader" });
    await h.refuses(
      "run.state",
      () =>
        refusedCode(reader.send, frame({ type: "answer", suspensionId: "root:9", value: true })),
    );
    await call(reader.send, { type: "answer", suspensionId: "root:1", value: true });
    await h.refuses(
      "run.state",
      () =>
        refusedCode(reader.send, frame({ type: "answer", suspensionId: "root:1", value: false })),
    );
    const run = (await call(reader.send, { type: "read-run" })).run;
    assert.deepEqual(run?.answers, [{ suspensionId: "root:1", value: true }]);
    assert.equal(run?.pending?.answered, true);
    const begun = await call(owner.send, { type: "begin", expected: two });
    const answer: JournalEvent = {
      type: "yield",
      coroutineId: "root",
      description: {
        type: "suspension_answer",
        name: "<Elicit> release.md:3:1",
        as: "ok",
        suspensionId: "root:1",
      },
      result: { status: "ok", value: true },
    };
    await call(owner.send, {
      type: "commit",
      expected: begun.frontier,
      event: answer,
      root: EMPTY_ROOT,
    });
    assert.deepEqual((await call(reader.send, { type: "read-run" })).run?.answers, []);
  });
});

Deno.test("RM-17: read-events pages by from and limit", async () => {
  await withDir(async (dir) => {
    const { h, owner } = await created(dir);
    using _ = h;
    let frontier: Frontier = (await call(owner.send, { type: "read-run" })).run!.frontier;
    for (let i = 1; i <= 5; i++) {
      frontier = (await call(owner.send, {
        type: "commit",
        expected: frontier,
        event: logEvent(i),
        root: EMPTY_ROOT,
      })).frontier;
    }
    const page = await call(owner.send, { type: "read-events", from: 2, limit: 3 });
    assert.deepEqual(page.events.map((e) => e.id), [2, 3, 4]);
    assert.deepEqual(page.events[0].event, logEvent(2));
    assert.deepEqual(
      (await call(owner.send, { type: "read-events", from: 6, limit: 3 })).events,
      [],
    );
  });
});

Deno.test("RM-53: read-events carries the execution that appended each event, as the run database holds it", async () => {
  await withDir(async (dir) => {
    {
      const { h, owner, frontier } = await created(dir);
      using _ = h;
      await call(owner.send, {
        type: "commit",
        expected: frontier,
        event: logEvent(1),
        root: EMPTY_ROOT,
      });
    }
    // The owner is gone: the next acquisition closes execution 1 and begins execution 2.
    using h = new Harness(dir);
    const owner = h.connect();
    const hello = await call(owner.send, { type: "hello", role: "executor" });
    const begun = await call(owner.send, { type: "begin", expected: hello.frontier! });
    await call(owner.send, {
      type: "commit",
      expected: begun.frontier,
      event: logEvent(2),
      root: EMPTY_ROOT,
    });
    const { events } = await call(owner.send, { type: "read-events", from: 1, limit: 10 });
    assert.deepEqual(events.map((e) => [e.id, e.execution]), [[1, 1], [2, 2]]);
    const rows = h.seam.exec("SELECT seq, execution FROM event ORDER BY seq");
    assert.deepEqual(rows.map((row) => [row.seq, row.execution]), [[1, 1], [2, 2]]);
  });
});

Deno.test("RM-19: cancel and delete belong to the owner; delete leaves an empty run database bound to the same admission", async () => {
  await withDir(async (dir) => {
    const { h, owner, frontier } = await created(dir);
    using _ = h;
    await h.refuses("run.state", () => refusedCode(owner.send, frame({ type: "cancel" })));
    await call(owner.send, {
      type: "settle",
      expected: frontier,
      status: "interrupted",
      stopReason: { kind: "host", code: "interrupted" },
    });
    await call(owner.send, { type: "cancel" });
    assert.equal((await call(owner.send, { type: "read-run" })).run?.record.status, "cancelled");
    await call(owner.send, { type: "delete" });
    assert.equal((await call(owner.send, { type: "read-run" })).run, null);
    await h.refuses("run.not_found", () => refusedCode(owner.send, frame({ type: "delete" })));
    owner.close();
    const next = h.connect();
    assert.equal((await call(next.send, { type: "hello", role: "executor" })).epoch, 2);
    await call(next.send, { type: "create", run: newRun() });
  });
});

Deno.test("RM-18: 10,000 hostile frames change nothing, each refused with a code; a valid commit still lands", async () => {
  await withDir(async (dir) => {
    const { h, owner, frontier } = await created(dir);
    using _ = h;
    const reader = h.connect();
    await call(reader.send, { type: "hello", role: "reader" });
    const fresh = h.connect();
    const lanes: Record<Lane, Send> = { owner: owner.send, reader: reader.send, fresh: fresh.send };
    const before = h.state();
    const kinds = new Map<string, number>();
    for (const item of fuzzCorpus(20261201, 10_000, frontier)) {
      const { reply } = decodeReply(await lanes[item.lane](item.message));
      kinds.set(item.kind, (kinds.get(item.kind) ?? 0) + 1);
      if (reply.type === "error") {
        assert.notEqual(reply.code, "internal", `${item.kind}: ${reply.message}`);
      } else {
        assert.ok(!item.mustRefuse, `${item.kind} was accepted as ${reply.type}`);
        assert.ok(
          ["ping", "read-run", "read-events", "get-objects", "get-chunks", "hello"].includes(
            reply.type,
          ),
        );
      }
    }
    assert.ok(kinds.size >= 8, [...kinds.keys()].join(", "));
    const after = h.state();
    assert.equal(after.rows, before.rows);
    assert.deepEqual(after.bytes, before.bytes);
    const landed = await commitRoot(
      owner.send,
      frontier,
      buildRoot({ "after.txt": "fuzz survived\n" }),
    );
    assert.equal(landed.events, frontier.events + 1);
  });
});

Deno.test("RM-3: a commit's event over the row limit is refused before any SQL", async () => {
  await withDir(async (dir) => {
    const { h, owner, frontier } = await created(dir);
    using _ = h;
    const event: JournalEvent = {
      ...logEvent(1),
      result: { status: "ok", value: "x".repeat(2 * 1024 * 1024) },
    };
    await h.refuses(
      "limit.row",
      () =>
        refusedCode(
          owner.send,
          frame({ type: "commit", expected: frontier, event, root: EMPTY_ROOT }),
        ),
    );
    assert.equal(canonicalJson(newRun().props), '{"version":"1.2.3"}');
  });
});

Deno.test("RM-121: a commit carrying its chunks lands them with its root in one transaction; a wrong digest, a short payload, a stale frontier or a size they do not add up to stores nothing", async () => {
  await withDir(async (dir) => {
    const { h, owner, frontier } = await created(dir);
    using _ = h;
    const built = buildRoot({ "a.txt": "alpha\n", notes: { "b.txt": "beta\n" } });
    const { headers, payload } = chunkFrame(built.chunks);
    const commit = (body: Record<string, unknown>, bytes: Uint8Array) =>
      frame(
        {
          type: "commit",
          expected: frontier,
          event: logEvent(1),
          root: built.root,
          objects: built.objects,
          chunks: headers,
          ...body,
        } as Parameters<typeof frame>[0],
        bytes,
      );
    const flipped = payload.slice();
    flipped[0] ^= 1;
    await h.refuses("chunk.digest", () => refusedCode(owner.send, commit({}, flipped)));
    await h.refuses(
      "protocol.malformed",
      () => refusedCode(owner.send, commit({}, payload.subarray(1))),
    );
    const stale = { ...frontier, events: 1 };
    await h.refuses(
      "frontier.stale",
      () => refusedCode(owner.send, commit({ expected: stale }, payload)),
    );
    // Without its chunks, the commit names content the Durable Object lacks.
    await h.refuses(
      "object.missing",
      () => refusedCode(owner.send, commit({ chunks: undefined }, new Uint8Array())),
    );
    // A file whose carried chunk does not add up to its size (RM-14 2).
    const [carried] = headers;
    const oversize = fileObject(carried.length + 1, [carried.hash]);
    const oversizeTree = treeObject([
      { name: "a.txt", kind: "file", mode: 0o644, ref: sha256Hex(oversize) },
    ]);
    await h.refuses("object.size", () =>
      refusedCode(
        owner.send,
        commit({
          root: sha256Hex(oversizeTree),
          objects: [
            { hash: sha256Hex(oversize), text: oversize },
            { hash: sha256Hex(oversizeTree), text: oversizeTree },
          ],
          chunks: [carried],
        }, payload.subarray(0, carried.length)),
      ));
    const landed = decodeReply(await owner.send(commit({}, payload)));
    assert.equal(landed.reply.type, "commit");
    verifyRoot(h.seam, built.root, "the run");
    const reader = h.connect();
    await call(reader.send, { type: "hello", role: "reader" });
    const chunks = await call(reader.send, {
      type: "get-chunks",
      hashes: headers.map((c) => c.hash),
    });
    assert.deepEqual(chunks.payload, payload);
  });
});
