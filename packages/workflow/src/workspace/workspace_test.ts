import { FileSystemError } from "@xmd/core/protocol";
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { WorkflowDatabaseCorruptError } from "../contracts/workflow-errors.ts";
import { NodeSqliteSeam } from "../deno/node-sqlite-seam.ts";
import { forgetHashes, publishRoot } from "./publish-root.ts";
import { fileObject, objectHash, treeObject } from "./root-format.ts";
import { liveRootOf } from "./live-root.ts";
import { verifyRoot } from "./verify-root.ts";
import { diffRoots, walkRoot } from "./walk-root.ts";
import { compareUtf8, Workspace } from "./workspace.ts";

const text = (value: string) => new TextEncoder().encode(value);
const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

function workspace(): Workspace {
  const seam = new NodeSqliteSeam(new DatabaseSync(":memory:"));
  seam.transaction(() => Workspace.initialize(seam));
  return new Workspace(seam);
}

function refuses(action: () => unknown, code: string): void {
  assert.throws(action, (error) => error instanceof FileSystemError && error.posix === code);
}

/** Runs `action` the way an effect does: in a savepoint that a refusal rolls back. */
function inSavepoint(ws: Workspace, action: () => void): void {
  ws.sql.transaction(() => ws.sql.transaction(action));
}

Deno.test("workspace: files and directories round-trip", () => {
  const ws = workspace();
  ws.mkdir("/release/notes", { recursive: true });
  ws.writeFile("/release/VERSION", text("1.4.0"));
  ws.writeFile("/release/notes/a.md", text("# A\n"), { mode: 0o600 });
  assert.equal(decode(ws.readFile("/release/VERSION")), "1.4.0");
  assert.deepEqual(ws.readdir("/release"), ["VERSION", "notes"]);
  assert.deepEqual(ws.readdir("/"), ["release"]);
  assert.equal(ws.stat("/release/notes/a.md").mode, 0o600);
  assert.equal(ws.stat("/release/notes/a.md").size, 4);
  assert.equal(ws.stat("/release").kind, "dir");
  ws.writeFile("/release/VERSION", text("1.5.0"));
  assert.equal(decode(ws.readFile("/release/VERSION")), "1.5.0");
  assert.equal(decode(ws.readFile("/release/notes/../VERSION")), "1.5.0");
  assert.equal(decode(ws.readFile("/../../release/VERSION")), "1.5.0", ".. stops at /");
});

Deno.test("workspace: POSIX refusals carry their codes", () => {
  const ws = workspace();
  ws.mkdir("/d");
  ws.writeFile("/d/f", text("x"));
  refuses(() => ws.readFile("/missing"), "ENOENT");
  refuses(() => ws.readFile("/d"), "EISDIR");
  refuses(() => ws.writeFile("/d", text("x")), "EISDIR");
  refuses(() => ws.writeFile("/missing/f", text("x")), "ENOENT");
  refuses(() => ws.readFile("/d/f/g"), "ENOTDIR");
  refuses(() => ws.mkdir("/d"), "EEXIST");
  refuses(() => ws.rmdir("/d"), "ENOTEMPTY");
  refuses(() => ws.rmdir("/d/f"), "ENOTDIR");
  refuses(() => ws.unlink("/d"), "EISDIR");
  refuses(() => ws.readlink("/d/f"), "EINVAL");
  refuses(() => ws.link("/d", "/e"), "EPERM");
  refuses(() => ws.readFile("relative"), "EINVAL");
  refuses(() => ws.rename("/d", "/d/inner"), "EINVAL");
  refuses(() => ws.rmdir("/"), "EINVAL");
});

Deno.test("workspace: a refusal inside a savepoint changes nothing", () => {
  const ws = workspace();
  ws.writeFile("/keep", text("k"));
  const root = ws.sql.transaction(() => publishRoot(ws.sql));
  assert.throws(() =>
    inSavepoint(ws, () => {
      ws.writeFile("/new", text("n"));
      ws.readFile("/missing");
    })
  );
  assert.equal(ws.exists("/new"), false);
  assert.equal(ws.sql.transaction(() => publishRoot(ws.sql)), root);
});

Deno.test("workspace: symlinks keep their target verbatim and resolve boundedly", () => {
  const ws = workspace();
  ws.mkdir("/a/b", { recursive: true });
  ws.writeFile("/a/b/file", text("data"));
  ws.symlink("b/file", "/a/rel");
  ws.symlink("/a/b", "/abs");
  ws.symlink("../../../../etc/passwd", "/a/escape");
  assert.equal(ws.readlink("/a/rel"), "b/file");
  assert.equal(decode(ws.readFile("/a/rel")), "data");
  assert.equal(decode(ws.readFile("/abs/file")), "data");
  assert.equal(ws.lstat("/a/rel").kind, "symlink");
  assert.equal(ws.stat("/a/rel").kind, "file");
  refuses(() => ws.readFile("/a/escape"), "ENOENT");
  ws.symlink("/loop2", "/loop1");
  ws.symlink("/loop1", "/loop2");
  refuses(() => ws.readFile("/loop1"), "ELOOP");
  ws.symlink("new-target", "/dangling");
  ws.writeFile("/dangling", text("created"));
  assert.equal(decode(ws.readFile("/new-target")), "created");
  ws.unlink("/abs");
  assert.equal(ws.exists("/a/b/file"), true, "unlink removes the link, not its target");
});

Deno.test("workspace: hard links share content until the last link goes", () => {
  const ws = workspace();
  ws.writeFile("/one", text("shared"));
  ws.link("/one", "/two");
  assert.equal(ws.stat("/one").nlink, 2);
  ws.writeFile("/two", text("changed"));
  assert.equal(decode(ws.readFile("/one")), "changed");
  ws.unlink("/one");
  assert.equal(decode(ws.readFile("/two")), "changed");
  assert.equal(ws.stat("/two").nlink, 1);
});

Deno.test("workspace: rename replaces compatible targets as POSIX does", () => {
  const ws = workspace();
  ws.writeFile("/a", text("a"));
  ws.writeFile("/b", text("b"));
  ws.rename("/a", "/b");
  assert.equal(decode(ws.readFile("/b")), "a");
  assert.equal(ws.exists("/a"), false);
  ws.mkdir("/d1");
  ws.writeFile("/d1/x", text("x"));
  ws.mkdir("/d2");
  ws.rename("/d1", "/d2");
  assert.equal(decode(ws.readFile("/d2/x")), "x");
  ws.mkdir("/full");
  ws.writeFile("/full/y", text("y"));
  refuses(() => ws.rename("/d2", "/full"), "ENOTEMPTY");
  refuses(() => ws.rename("/b", "/full"), "EISDIR");
  refuses(() => ws.rename("/full", "/b"), "ENOTDIR");
});

Deno.test("workspace: large files are chunked at 1 MiB and identical chunks are stored once", () => {
  const ws = workspace();
  const big = new Uint8Array(2.5 * 1024 * 1024).map((_, i) => i % 251);
  ws.writeFile("/big", big);
  ws.writeFile("/copy", big);
  assert.deepEqual(ws.readFile("/big"), big);
  assert.equal(ws.sql.exec("SELECT count(*) AS n FROM ws_chunk")[0].n, 3);
  assert.ok(
    ws.sql.exec("SELECT max(length(data)) AS n FROM ws_chunk")[0].n as number <= 1024 * 1024,
  );
});

Deno.test("WS-70 writeFileFrom stores pieces of any sizes as writeFile stores the same bytes, chunk by chunk as they arrive", () => {
  const MiB = 1024 * 1024;
  const bytes = new Uint8Array(3 * MiB + 5).map((_, i) => (i * 7) % 253);
  const whole = workspace();
  whole.writeFile("/f", bytes, { mode: 0o600 });
  const streamed = workspace();
  // One reused buffer, as a reader of a host file would hand out: 1 byte, then 700 KiB pieces,
  // then the rest in one piece longer than a chunk.
  const buffer = new Uint8Array(2 * MiB);
  const sizes = [1, 700 * 1024, 700 * 1024, 700 * 1024];
  const storedWhileReading: number[] = [];
  function* pieces(): Generator<Uint8Array> {
    let at = 0;
    for (const size of [...sizes, bytes.length - sizes.reduce((a, b) => a + b, 0)]) {
      storedWhileReading.push(Number(streamed.sql.exec("SELECT count(*) AS n FROM ws_chunk")[0].n));
      const piece = size <= buffer.length ? buffer.subarray(0, size) : new Uint8Array(size);
      piece.set(bytes.subarray(at, at + size));
      at += size;
      yield piece;
    }
  }
  streamed.writeFileFrom("/f", pieces(), { mode: 0o600 });
  assert.deepEqual(streamed.readFile("/f"), bytes);
  assert.deepEqual(
    streamed.sql.exec("SELECT length(data) AS n FROM ws_chunk ORDER BY n DESC").map((r) => r.n),
    [MiB, MiB, MiB, 5],
  );
  // The first chunk was stored before the fourth piece was asked for.
  assert.deepEqual(storedWhileReading, [0, 0, 0, 1, 2]);
  const publish = (ws: Workspace) => ws.sql.transaction(() => publishRoot(ws.sql));
  assert.equal(publish(streamed), publish(whole));
  assert.deepEqual(streamed.stat("/f"), whole.stat("/f"));
  // Over an existing file, and an empty source.
  streamed.writeFileFrom("/f", []);
  assert.equal(streamed.stat("/f").size, 0);
  refuses(() => streamed.writeFileFrom("/", [text("x")]), "EISDIR");
});

Deno.test("root format 1: test vectors", () => {
  const ws = workspace();
  const empty = ws.sql.transaction(() => publishRoot(ws.sql));
  assert.equal(empty, objectHash('{"entries":[],"format":1}'));
  ws.writeFile("/hello.txt", text("hi\n"));
  ws.symlink("hello.txt", "/link");
  const file = fileObject(3, [
    "98ea6e4f216f2fb4b69fff9b3a44842c38686ca685f3f55dc48c5d3fb1107be4",
  ]);
  assert.equal(
    file,
    '{"chunks":["98ea6e4f216f2fb4b69fff9b3a44842c38686ca685f3f55dc48c5d3fb1107be4"],"format":1,"size":3}',
  );
  const tree = treeObject([
    { name: "link", kind: "symlink", mode: 0o777, ref: "hello.txt" },
    { name: "hello.txt", kind: "file", mode: 0o644, ref: objectHash(file) },
  ]);
  assert.equal(
    tree,
    `{"entries":[["hello.txt","file",420,"${
      objectHash(file)
    }"],["link","symlink",511,"hello.txt"]],"format":1}`,
  );
  assert.equal(ws.sql.transaction(() => publishRoot(ws.sql)), objectHash(tree));
});

Deno.test("root identity ignores inode numbers and creation order, not modes or names", () => {
  const a = workspace();
  a.mkdir("/x");
  a.writeFile("/x/1", text("one"));
  a.writeFile("/2", text("two"));
  const b = workspace();
  b.writeFile("/2", text("scratch"));
  b.writeFile("/tmp", text("t"));
  b.unlink("/tmp");
  b.writeFile("/2", text("two"));
  b.mkdir("/x");
  b.writeFile("/x/1", text("one"));
  const rootA = a.sql.transaction(() => publishRoot(a.sql));
  assert.equal(b.sql.transaction(() => publishRoot(b.sql)), rootA);
  b.chmod("/x/1", 0o600);
  assert.notEqual(b.sql.transaction(() => publishRoot(b.sql)), rootA);
});

Deno.test("publication rehashes only the directories on the changed path", () => {
  const ws = workspace();
  for (let d = 0; d < 10; d++) {
    ws.mkdir(`/${d}`);
    for (let f = 0; f < 10; f++) ws.writeFile(`/${d}/${f}`, text(`${d}${f}`));
  }
  ws.sql.transaction(() => publishRoot(ws.sql));
  ws.writeFile("/3/4", text("changed"));
  const dirty = ws.sql.exec("SELECT count(*) AS n FROM ws_inode WHERE hash IS NULL")[0].n;
  assert.equal(dirty, 3, "the file, its directory and the root");
  const incremental = ws.sql.transaction(() => publishRoot(ws.sql));
  forgetHashes(ws.sql);
  assert.equal(ws.sql.transaction(() => publishRoot(ws.sql)), incremental);
});

Deno.test("verification refuses flipped chunks, altered objects and missing objects", () => {
  const ws = workspace();
  ws.mkdir("/d");
  ws.writeFile("/d/f", text("content"));
  const root = ws.sql.transaction(() => publishRoot(ws.sql));
  verifyRoot(ws.sql, root, "run");
  const chunk = String(ws.sql.exec("SELECT hash FROM ws_chunk")[0].hash);
  ws.sql.exec("UPDATE ws_chunk SET data = ? WHERE hash = ?", text("CONTENT"), chunk);
  assert.throws(() => verifyRoot(ws.sql, root, "run"), WorkflowDatabaseCorruptError);
  ws.sql.exec("UPDATE ws_chunk SET data = ? WHERE hash = ?", text("content"), chunk);
  verifyRoot(ws.sql, root, "run");
  ws.sql.exec("UPDATE ws_object SET body = body || ' ' WHERE hash = ?", root);
  assert.throws(() => verifyRoot(ws.sql, root, "run"), /does not match its hash/);
  assert.throws(() => verifyRoot(ws.sql, "0".repeat(64), "run"), /is missing/);
});

Deno.test("compareUtf8 orders names by their UTF-8 bytes", () => {
  const names = ["b", "a", "\u{1F600}", "\uFFFD", "é", "Z", "\uE000", "aa", ""];
  const bytes = (s: string) => Array.from(new TextEncoder().encode(s));
  const byBytes = [...names].sort((x, y) => {
    const a = bytes(x);
    const b = bytes(y);
    for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
    return a.length - b.length;
  });
  assert.deepEqual([...names].sort(compareUtf8), byBytes);
  assert.notDeepEqual([...names].sort(), byBytes, "plain UTF-16 order differs here");
});

Deno.test("workspace: realpath through an absolute symlink starts again from the root", () => {
  const ws = workspace();
  ws.mkdir("/a/deep", { recursive: true });
  ws.mkdir("/b");
  ws.writeFile("/b/f", text("x"));
  ws.symlink("/b", "/a/deep/l");
  ws.symlink("deep/l", "/a/rel");
  assert.equal(ws.realpath("/a/deep/l"), "/b");
  assert.equal(ws.realpath("/a/deep/l/f"), "/b/f");
  assert.equal(ws.realpath("/a/rel/f"), "/b/f");
  assert.equal(ws.realpath("/a/deep/l/.."), "/");
  refuses(() => ws.writeFile("/a/deep/l/f/g", text("y")), "ENOTDIR");
});

Deno.test("WS-47: paths, names, targets and resolved paths beyond PATH_MAX/NAME_MAX are ENAMETOOLONG, changing nothing", () => {
  const ws = workspace();
  const dir = `/${"d/".repeat(1023)}d`; // 2,048 bytes, 1,024 levels
  ws.mkdir(dir, { recursive: true });
  ws.symlink(dir.slice(1), "/link"); // a relative target of 2,047 bytes
  const root = ws.sql.transaction(() => publishRoot(ws.sql));
  const allowed = `/${"x".repeat(255)}`;
  ws.writeFile(allowed, text("ok"));
  ws.unlink(allowed);
  const tooLong = (action: () => void, why: RegExp) => {
    assert.throws(() => inSavepoint(ws, action), (error) => {
      assert.ok(error instanceof FileSystemError);
      assert.equal(error.posix, "ENAMETOOLONG");
      assert.match(error.message, why);
      assert.ok(error.message.length < 120, "the message echoes the path");
      return true;
    });
  };
  const path = /it is longer than 4096 bytes \(ENAMETOOLONG\)$/;
  const name = /a name in it is longer than 255 bytes \(ENAMETOOLONG\)$/;
  const resolved = /its resolved path is longer than 4096 bytes \(ENAMETOOLONG\)$/;
  const overlong = `/${"p/".repeat(2048)}`;
  tooLong(() => ws.mkdir(overlong, { recursive: true }), path);
  tooLong(() => ws.stat(overlong), path);
  tooLong(() => ws.writeFile(`/${"n".repeat(256)}`, text("x")), name);
  tooLong(() => ws.symlink("t".repeat(4097), "/s"), /the target: it is/);
  // The path is 2,309 bytes, but through the link it names an entry 4,352 bytes deep.
  const viaLink = `/link${`/${"e".repeat(255)}`.repeat(9)}`;
  tooLong(() => ws.mkdir(`${dir}/${"e".repeat(2040)}`), name);
  tooLong(() => ws.mkdir(viaLink, { recursive: true }), resolved);
  assert.equal(ws.sql.transaction(() => publishRoot(ws.sql)), root, "a refusal changed the tree");
});

Deno.test("WS-48: a tree 10,000 levels deep publishes, verifies, walks and diffs without recursion", () => {
  const ws = workspace();
  const empty = ws.sql.transaction(() => publishRoot(ws.sql));
  // Each round moves the whole tree one level down: no path ever names its bottom.
  ws.mkdir("/a");
  ws.writeFile("/a/f", text("bottom"));
  for (let level = 0; level < 10_000; level++) {
    ws.mkdir("/n");
    ws.rename("/a", "/n/a");
    ws.rename("/n", "/a");
  }
  const root = ws.sql.transaction(() => publishRoot(ws.sql));
  verifyRoot(ws.sql, root, "the run");
  assert.equal(liveRootOf(ws.sql, "the run"), root);
  const entries = [...walkRoot(ws.sql, root)];
  assert.equal(entries.length, 10_001 + 1);
  const bottom = entries.at(-1)!;
  assert.equal(bottom.path, `${"a/".repeat(10_001)}f`);
  assert.equal(bottom.kind === "file" && decode([...bottom.chunks()][0]), "bottom");
  assert.equal(diffRoots(ws.sql, empty, root).added.length, 10_002);
  forgetHashes(ws.sql);
  assert.equal(ws.sql.transaction(() => publishRoot(ws.sql)), root, "a full rehash differs");
});
