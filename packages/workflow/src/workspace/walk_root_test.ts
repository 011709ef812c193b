import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { sha256Hex } from "@xmd/core/protocol";
import { WorkflowDatabaseCorruptError } from "../contracts/workflow-errors.ts";
import { NodeSqliteSeam } from "../deno/node-sqlite-seam.ts";
import type { SqlSeam, SqlValue } from "../sql/sql-seam.ts";
import { liveHardLinks } from "./hard-links.ts";
import { materializeRoot } from "./materialize-root.ts";
import { publishRoot } from "./publish-root.ts";
import { fileObject, objectHash, treeObject } from "./root-format.ts";
import { verifyRoot } from "./verify-root.ts";
import { diffRoots, type RootEntry, walkRoot } from "./walk-root.ts";
import { Workspace } from "./workspace.ts";

const text = (value: string) => new TextEncoder().encode(value);

function workspace(): Workspace {
  const seam = new NodeSqliteSeam(new DatabaseSync(":memory:"));
  seam.transaction(() => Workspace.initialize(seam));
  return new Workspace(seam);
}

const publish = (ws: Workspace) => ws.sql.transaction(() => publishRoot(ws.sql));

/** The pieces joined. */
function contentOf(pieces: Iterable<Uint8Array>): Uint8Array {
  const all = [...pieces];
  const out = new Uint8Array(all.reduce((sum, piece) => sum + piece.length, 0));
  let offset = 0;
  for (const piece of all) {
    out.set(piece, offset);
    offset += piece.length;
  }
  return out;
}

/** The walk with file contents as text, for comparison. */
function walked(ws: Workspace, root: string) {
  return [...walkRoot(ws.sql, root)].map((entry: RootEntry) => {
    if (entry.kind === "file") {
      const { object: _, size: __, chunks, ...rest } = entry;
      return { ...rest, content: new TextDecoder().decode(contentOf(chunks())) };
    }
    return entry;
  });
}

Deno.test("walkRoot yields every entry pre-order in UTF-8 name order, with modes, contents and targets", () => {
  const ws = workspace();
  ws.mkdir("/release/notes", { recursive: true });
  ws.writeFile("/release/VERSION", text("1.4.0"));
  ws.writeFile("/release/notes/a.md", text("# A\n"), { mode: 0o600 });
  ws.writeFile("/release-b", text("b"));
  ws.symlink("../VERSION", "/release/notes/current");
  ws.mkdir("/empty", { mode: 0o700 });
  ws.writeFile("/\u00e9", text("accent"));
  assert.deepEqual(walked(ws, publish(ws)), [
    { path: "empty", kind: "dir", mode: 0o700 },
    { path: "release", kind: "dir", mode: 0o755 },
    { path: "release/VERSION", kind: "file", mode: 0o644, content: "1.4.0" },
    { path: "release/notes", kind: "dir", mode: 0o755 },
    { path: "release/notes/a.md", kind: "file", mode: 0o600, content: "# A\n" },
    { path: "release/notes/current", kind: "symlink", mode: 0o777, target: "../VERSION" },
    { path: "release-b", kind: "file", mode: 0o644, content: "b" },
    { path: "\u00e9", kind: "file", mode: 0o644, content: "accent" },
  ]);
});

Deno.test("walkRoot reassembles a chunked file and walks an older root as it was", () => {
  const ws = workspace();
  const big = new Uint8Array(1024 * 1024 + 17).map((_, i) => i % 253);
  ws.writeFile("/big", big);
  const before = publish(ws);
  ws.writeFile("/big", text("small now"));
  ws.writeFile("/new", text("n"));
  const after = publish(ws);
  const old = [...walkRoot(ws.sql, before)];
  assert.equal(old.length, 1);
  assert.equal(old[0].kind, "file");
  assert.ok(old[0].kind === "file");
  assert.equal(old[0].size, big.length);
  // One stored chunk at a time: a full chunk, then the rest.
  assert.deepEqual([...old[0].chunks()].map((chunk) => chunk.length), [1024 * 1024, 17]);
  assert.deepEqual(contentOf(old[0].chunks()), big);
  assert.deepEqual(walked(ws, after).map((entry) => entry.path), ["big", "new"]);
});

Deno.test("walkRoot gives hard links the same file object and an empty root nothing", () => {
  const ws = workspace();
  assert.deepEqual([...walkRoot(ws.sql, publish(ws))], []);
  ws.writeFile("/one", text("shared"));
  ws.link("/one", "/two");
  const files = [...walkRoot(ws.sql, publish(ws))];
  assert.equal(files.length, 2);
  assert.ok(files[0].kind === "file" && files[1].kind === "file");
  assert.equal(files[0].object, files[1].object);
});

Deno.test("diffRoots lists added, removed and changed paths, each sorted", () => {
  const ws = workspace();
  ws.mkdir("/d/sub", { recursive: true });
  ws.writeFile("/d/sub/x", text("x"));
  ws.writeFile("/keep", text("k"));
  ws.writeFile("/edit", text("1"));
  ws.writeFile("/mode", text("m"));
  ws.symlink("keep", "/link");
  ws.writeFile("/becomes-dir", text("f"));
  ws.mkdir("/becomes-file");
  ws.writeFile("/becomes-file/inner", text("i"));
  const a = publish(ws);
  ws.unlink("/d/sub/x");
  ws.rmdir("/d/sub");
  ws.rmdir("/d");
  ws.writeFile("/edit", text("2"));
  ws.chmod("/mode", 0o700);
  ws.unlink("/link");
  ws.symlink("edit", "/link");
  ws.unlink("/becomes-dir");
  ws.mkdir("/becomes-dir");
  ws.writeFile("/becomes-dir/child", text("c"));
  ws.unlink("/becomes-file/inner");
  ws.rmdir("/becomes-file");
  ws.writeFile("/becomes-file", text("f"));
  ws.mkdir("/new/deeper", { recursive: true });
  ws.writeFile("/new/deeper/file", text("n"));
  const b = publish(ws);
  assert.deepEqual(diffRoots(ws.sql, a, b), {
    added: ["becomes-dir/child", "new", "new/deeper", "new/deeper/file"],
    removed: ["becomes-file/inner", "d", "d/sub", "d/sub/x"],
    changed: ["becomes-dir", "becomes-file", "edit", "link", "mode"],
  });
  assert.deepEqual(diffRoots(ws.sql, b, a), {
    added: ["becomes-file/inner", "d", "d/sub", "d/sub/x"],
    removed: ["becomes-dir/child", "new", "new/deeper", "new/deeper/file"],
    changed: ["becomes-dir", "becomes-file", "edit", "link", "mode"],
  });
  assert.deepEqual(diffRoots(ws.sql, a, a), { added: [], removed: [], changed: [] });
});

Deno.test("diffRoots sees a directory's own mode change and a rewrite to the same bytes as none", () => {
  const ws = workspace();
  ws.mkdir("/d");
  ws.writeFile("/d/f", text("same"));
  const a = publish(ws);
  ws.writeFile("/d/f", text("same"));
  ws.chmod("/d", 0o750);
  const b = publish(ws);
  assert.deepEqual(diffRoots(ws.sql, a, b), { added: [], removed: [], changed: ["d"] });
});

/** A seam that counts the distinct stored objects read through it (a delta's base included). */
function countingReads(sql: SqlSeam): { seam: SqlSeam; reads: () => number } {
  const read = new Set<SqlValue>();
  const seam: SqlSeam = {
    exec(query: string, ...params: SqlValue[]) {
      if (query.startsWith("SELECT body, base, depth FROM ws_object")) read.add(params[0]);
      return sql.exec(query, ...params);
    },
    transaction: (fn, label) => sql.transaction(fn, label),
  };
  return { seam, reads: () => read.size };
}

Deno.test("diffRoots reads only the trees on the changed path, however large the Workspace", () => {
  const ws = workspace();
  for (let d = 0; d < 20; d++) {
    ws.mkdir(`/${d}`);
    for (let f = 0; f < 20; f++) ws.writeFile(`/${d}/${f}`, text(`${d}.${f}`));
  }
  const a = publish(ws);
  ws.writeFile("/7/3", text("changed"));
  const b = publish(ws);
  const { seam, reads } = countingReads(ws.sql);
  assert.deepEqual(diffRoots(seam, a, b), { added: [], removed: [], changed: ["7/3"] });
  assert.equal(reads(), 4, "two root trees and the two trees of directory 7");
});

Deno.test("walkRoot and diffRoots refuse damaged or missing objects as corruption", () => {
  const ws = workspace();
  ws.mkdir("/d");
  ws.writeFile("/d/f", text("content"));
  const root = publish(ws);
  const chunk = String(ws.sql.exec("SELECT hash FROM ws_chunk")[0].hash);
  ws.sql.exec("UPDATE ws_chunk SET data = ? WHERE hash = ?", text("CONTENT"), chunk);
  assert.throws(() => walked(ws, root), WorkflowDatabaseCorruptError);
  ws.sql.exec("DELETE FROM ws_chunk WHERE hash = ?", chunk);
  assert.throws(() => walked(ws, root), /chunk [0-9a-f]{12} is missing/);
  const missing = "0".repeat(64);
  assert.throws(() => [...walkRoot(ws.sql, missing)], /object 000000000000 is missing/);
  assert.throws(() => diffRoots(ws.sql, root, missing), WorkflowDatabaseCorruptError);
});

Deno.test("a hash-consistent tree whose names could leave their directory is malformed", () => {
  const ws = workspace();
  const file = fileObject(0, []);
  ws.sql.exec("INSERT INTO ws_object (hash, body) VALUES (?, ?)", objectHash(file), file);
  const forged = (names: string[]) => {
    // Written by hand: treeObject would sort, and the Workspace never stores such names.
    const body = JSON.stringify({
      entries: names.map((name) => [name, "file", 0o644, objectHash(file)]),
      format: 1,
    });
    const hash = objectHash(body);
    ws.sql.exec("INSERT OR IGNORE INTO ws_object (hash, body) VALUES (?, ?)", hash, body);
    return hash;
  };
  for (const names of [[".."], ["."], ["a/b"], ["a\0"], ["b", "a"], ["a", "a"]]) {
    const root = forged(names);
    assert.throws(() => verifyRoot(ws.sql, root, "run"), /is malformed/, JSON.stringify(names));
    assert.throws(() => [...walkRoot(ws.sql, root)], /is malformed/);
  }
  const fine = forged(["a", "b"]);
  assert.equal(
    fine,
    objectHash(treeObject([
      { name: "b", kind: "file", mode: 0o644, ref: objectHash(file) },
      { name: "a", kind: "file", mode: 0o644, ref: objectHash(file) },
    ])),
  );
  verifyRoot(ws.sql, fine, "run");
});

Deno.test("liveHardLinks groups the paths sharing an inode, only for the live root", () => {
  const ws = workspace();
  ws.mkdir("/a/b", { recursive: true });
  ws.writeFile("/a/b/file", text("shared"));
  ws.writeFile("/single", text("alone"));
  const before = publish(ws);
  assert.deepEqual(liveHardLinks(ws.sql, before), []);
  ws.link("/a/b/file", "/top");
  ws.link("/a/b/file", "/a/again");
  ws.writeFile("/x", text("x"));
  ws.link("/x", "/y");
  const now = publish(ws);
  const groups = liveHardLinks(ws.sql, now).map((group) => group.sort()).sort();
  assert.deepEqual(groups, [["a/again", "a/b/file", "top"], ["x", "y"]]);
  assert.deepEqual(liveHardLinks(ws.sql, before), [], "an older root's links are unknown");
  ws.writeFile("/dirty", text("unpublished"));
  assert.deepEqual(liveHardLinks(ws.sql, now), [], "a live state past the root is not that root");
});

/** Two directories, three files, published; and a SHA-256 that counts its calls. */
function countedRoot() {
  const ws = workspace();
  ws.mkdir("/a");
  ws.writeFile("/a/one.txt", text("one"));
  ws.writeFile("/a/two.txt", text("two"));
  ws.writeFile("/three.txt", text("three"));
  const counter = {
    calls: 0,
    sha256: (data: string | Uint8Array) => {
      counter.calls++;
      return sha256Hex(data);
    },
  };
  // Two trees (/ and /a), three file objects, three chunks.
  return { ws, root: publish(ws), counter, reads: 2 + 3 + 3 };
}

Deno.test("WS-90: verifyRoot and walkRoot hash every object and chunk they read with the SHA-256 they are given", () => {
  const { ws, root, counter, reads } = countedRoot();
  verifyRoot(ws.sql, root, "the Workspace", counter.sha256);
  assert.equal(counter.calls, reads);
  counter.calls = 0;
  for (const entry of walkRoot(ws.sql, root, "the Workspace", counter.sha256)) {
    if (entry.kind === "file") [...entry.chunks()];
  }
  assert.equal(counter.calls, reads);
});

Deno.test("WS-90: materializeRoot hashes every object and chunk it reads with the SHA-256 it is given", () => {
  const { ws, root, counter, reads } = countedRoot();
  ws.sql.transaction(() => materializeRoot(ws.sql, root, [], "the Workspace", counter.sha256));
  assert.equal(counter.calls, reads, "each object and chunk once");
  assert.equal(publish(ws), root);
});
