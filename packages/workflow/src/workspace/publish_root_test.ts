import { FileSystemError } from "@xmd/core/protocol";
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { nativeSha256Hex } from "../deno/native-sha256.ts";
import { NodeSqliteSeam } from "../deno/node-sqlite-seam.ts";
import type { SqlSeam } from "../sql/sql-seam.ts";
import { liveRootOf } from "./live-root.ts";
import { forgetHashes, publicationCommitted, publishRoot } from "./publish-root.ts";
import { verifyRoot } from "./verify-root.ts";
import { Workspace } from "./workspace.ts";

const text = (value: string) => new TextEncoder().encode(value);

function seam(): NodeSqliteSeam {
  const sql = new NodeSqliteSeam(new DatabaseSync(":memory:"));
  sql.transaction(() => Workspace.initialize(sql));
  return sql;
}

/** The root id of the live tables, ignoring every cached hash (an independent computation). */
function referenceRoot(sql: SqlSeam): string {
  return liveRootOf(sql, "the test Workspace");
}

/** A deterministic pseudo-random source (mulberry32). */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

Deno.test("WS-16 WS-18: trees written by SQLite equal the reference encoding", () => {
  const sql = seam();
  const ws = new Workspace(sql);
  const names = [
    ...Array.from({ length: 31 }, (_, i) => `c${String.fromCharCode(i + 1)}`),
    "\u007f",
    "\u2028",
    "\u2029",
    '"',
    "\\",
    "\\u0000",
    "<script>",
    "é",
    "e\u0301",
    "ﬁ",
    "😀",
    "\uffff",
    "Z",
    "z",
    "a b",
  ];
  sql.transaction(() => {
    ws.mkdir("/d", { mode: 0o700 });
    for (const [i, name] of names.entries()) {
      if (i % 3 === 0) ws.symlink(`../${name}`, `/d/${name}`);
      else ws.writeFile(`/d/${name}`, text(name), { mode: 0o600 + i });
    }
  });
  const root = sql.transaction(() => publishRoot(sql));
  assert.equal(root, referenceRoot(sql));
  verifyRoot(sql, root, "the test Workspace");
});

Deno.test("WS-23: incremental publication equals the reference through savepoints and rollbacks", () => {
  const sql = seam();
  const ws = new Workspace(sql);
  const next = random(7);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)];
  const dirs = ["", "/a", "/a/b", "/c", "/a/b/d"];
  const names = ["f", "g", "é", "😀", "ﬁ", "x y", 'q"z', "a", "b", "c", "d"];
  const path = () => `${pick(dirs)}/${pick(names)}`;
  const operations: (() => void)[] = [
    () => ws.writeFile(path(), text(String(next()))),
    () => ws.writeFile(path(), text("same")),
    () => ws.mkdir(path()),
    () => ws.mkdir(pick(dirs.slice(1)), { recursive: true }),
    () => ws.unlink(path()),
    () => ws.rmdir(path()),
    () => ws.rename(path(), path()),
    () => ws.symlink(pick(names), path()),
    () => ws.link(path(), path()),
    () => ws.chmod(path(), pick([0o600, 0o644, 0o755])),
  ];
  const operate = (count: number) => {
    for (let i = 0; i < count; i++) {
      try {
        sql.transaction(pick(operations));
      } catch (error) {
        if (!(error instanceof FileSystemError)) throw error;
      }
    }
  };
  const rollback = new Error("roll back");
  for (let round = 0; round < 300; round++) {
    try {
      sql.transaction(() => {
        operate(1 + Math.floor(next() * 4));
        if (next() < 0.3) {
          // A savepoint that publishes, changes more and rolls back.
          try {
            sql.transaction(() => {
              if (next() < 0.7) assert.equal(publishRoot(sql), referenceRoot(sql));
              operate(1 + Math.floor(next() * 3));
              throw rollback;
            });
          } catch (error) {
            if (error !== rollback) throw error;
          }
        }
        if (next() < 0.8) assert.equal(publishRoot(sql), referenceRoot(sql));
        if (next() < 0.1) throw rollback;
      });
    } catch (error) {
      if (error !== rollback) throw error;
    }
    publicationCommitted(sql);
  }
  const root = sql.transaction(() => publishRoot(sql));
  assert.equal(root, referenceRoot(sql));
  verifyRoot(sql, root, "the test Workspace");
  sql.transaction(() => forgetHashes(sql));
  assert.equal(sql.transaction(() => publishRoot(sql)), root);
});

Deno.test("an injected native SHA-256 gives the same chunks, objects and roots", () => {
  const portable = seam();
  const native = seam();
  const build = (sql: SqlSeam, ws: Workspace, sha256?: typeof nativeSha256Hex) => {
    const roots: string[] = [];
    const publish = () => roots.push(sql.transaction(() => publishRoot(sql, sha256)));
    publish();
    sql.transaction(() => {
      ws.writeFile("/hello.txt", text("hi\n"));
      ws.symlink("hello.txt", "/link");
    });
    publish();
    sql.transaction(() => {
      ws.mkdir("/bin", { mode: 0o700 });
      ws.writeFile("/bin/run", new Uint8Array(1024 * 1024 + 1).fill(0x61), { mode: 0o755 });
      ws.link("/bin/run", "/run2");
      ws.writeFile("/ünïcode 😀", text("\u2028"));
    });
    publish();
    publicationCommitted(sql);
    sql.transaction(() => ws.writeFile("/bin/run", text("again")));
    publish();
    return roots;
  };
  const expected = build(portable, new Workspace(portable));
  assert.equal(expected[0], "56177ba82b132c561284403f08857796de5af224c36f16e9f410781f41504ae8");
  assert.equal(expected[1], "90621165f4c465efc567ec33dd5f137ddc94309e89019b1e3034fd638b25d10d");
  assert.deepEqual(
    build(native, new Workspace(native, { sha256: nativeSha256Hex }), nativeSha256Hex),
    expected,
  );
  const chunks = (sql: SqlSeam) => sql.exec("SELECT hash FROM ws_chunk ORDER BY hash");
  assert.deepEqual(chunks(native), chunks(portable));
  verifyRoot(native, expected[3], "the test Workspace");
});

Deno.test("WS-23: changes are recorded only after a commit that left the Workspace published", () => {
  const sql = seam();
  const ws = new Workspace(sql);
  const rollback = new Error("roll back");
  sql.transaction(() => {
    ws.mkdir("/a/b", { recursive: true });
    ws.writeFile("/a/b/f", text("1"));
    publishRoot(sql);
  });
  // Published once, so that the objects of that state exist before the savepoint below.
  for (const content of ["2", "1"]) {
    sql.transaction(() => {
      ws.writeFile("/a/b/f", text(content));
      publishRoot(sql);
    });
    publicationCommitted(sql);
  }
  // Committed unpublished: /a/b stays dirty across the commit.
  sql.transaction(() => ws.writeFile("/a/b/f", text("2")));
  publicationCommitted(sql);
  sql.transaction(() => {
    try {
      sql.transaction(() => {
        publishRoot(sql);
        ws.writeFile("/a/x", text("x"));
        throw rollback;
      });
    } catch (error) {
      if (error !== rollback) throw error;
    }
    assert.equal(publishRoot(sql), referenceRoot(sql));
  });
  publicationCommitted(sql);
  sql.transaction(() => ws.writeFile("/a/b/f", text("3")));
  assert.equal(sql.transaction(() => publishRoot(sql)), referenceRoot(sql));
});

Deno.test("WS-114: a growing folder's resumed tree hashes equal the reference, through rollbacks", () => {
  const sql = seam();
  const ws = new Workspace(sql, { sha256: nativeSha256Hex });
  const next = random(3);
  const rollback = new Error("roll back");
  const names: string[] = [];
  sql.transaction(() => ws.mkdir("/s"));
  publicationCommitted(sql);
  for (let step = 0; step < 320; step++) {
    // Names landing first, last and anywhere between, in a folder of up to 30 KB of tree text.
    const name = step % 7 === 0 ? `0-${step}` : step % 5 === 0 ? `z-${step}` : `m${next()}`;
    try {
      sql.transaction(() => {
        ws.writeFile(`/s/${name}`, text(name));
        if (step % 11 === 3 && names.length > 0) {
          const from = names.splice(Math.floor(next() * names.length), 1)[0];
          ws.rename(`/s/${from}`, `/s/r-${step}`);
        }
        if (step % 13 === 5) {
          try {
            sql.transaction(() => {
              assert.equal(publishRoot(sql, nativeSha256Hex), referenceRoot(sql));
              ws.writeFile(`/s/${step}-gone`, text("x"));
              throw rollback;
            });
          } catch (error) {
            if (error !== rollback) throw error;
          }
        }
        assert.equal(publishRoot(sql, nativeSha256Hex), referenceRoot(sql), `step ${step}`);
        if (step % 17 === 9) throw rollback;
      });
      names.push(name);
    } catch (error) {
      if (error !== rollback) throw error;
    }
    publicationCommitted(sql);
  }
  const root = sql.transaction(() => publishRoot(sql, nativeSha256Hex));
  verifyRoot(sql, root, "the test Workspace");
});
