/**
 * The run server's part of the storage engine's contract: cases that drive
 * `RunServer` over a fresh, empty database through its seam, run by the same
 * drivers as `RUN_STORE_CONTRACT` (node:sqlite files, and a SQLite-backed
 * Durable Object's `transactionSync` under workerd). Each refusal is checked
 * with the contract's dump: not a row changes.
 *
 * @module
 */
import { sha256Hex } from "@xmd/core/protocol";
import type { SqlSeam } from "../sql/sql-seam.ts";
import { type ContractCase, dump } from "../store/run_store_contract.ts";
import { fileObject, treeObject } from "../workspace/root-format.ts";
import {
  ADMISSION,
  type Body,
  buildRoot,
  type BuiltRoot,
  chunkFrame,
  EMPTY_ROOT,
  frame,
  logEvent,
  newRun,
} from "./_test-remote.ts";
import { decodeReply, type Frontier, type Reply } from "./frames.ts";
import { type RunConnection, RunServer } from "./run-server.ts";

class RemoteContractFailure extends Error {
  override name = "RemoteContractFailure";
}

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new RemoteContractFailure(message);
}

/** Sends `body` and returns the reply, which must be of its type. */
function call<T extends Body["type"]>(
  connection: RunConnection,
  body: Extract<Body, { type: T }>,
  payload?: Uint8Array,
): Extract<Reply, { type: T }> {
  const { reply } = decodeReply(connection.receive(frame(body, payload)));
  check(
    reply.type === body.type,
    `${body.type} answered ${
      reply.type === "error" ? `${reply.code}: ${reply.message}` : reply.type
    }`,
  );
  return reply as Extract<Reply, { type: T }>;
}

/** Asserts `body` is refused with `code` and not a row changes. */
function refused(seam: SqlSeam, connection: RunConnection, code: string, body: Body, what: string) {
  const before = dump(seam);
  const { reply } = decodeReply(connection.receive(frame(body)));
  check(reply.type === "error", `${what}: expected ${code}, got ${reply.type}`);
  check(reply.code === code, `${what}: expected ${code}, got ${reply.code}: ${reply.message}`);
  check(dump(seam) === before, `${what}: the refusal changed the database`);
}

/** A server over `seam` whose run exists, owned by the returned connection. */
function owned(seam: SqlSeam): { owner: RunConnection; frontier: Frontier } {
  const server = new RunServer(seam, ADMISSION);
  const owner = server.connect();
  call(owner, { type: "hello", role: "executor" });
  return { owner, frontier: call(owner, { type: "create", run: newRun() }).frontier };
}

function sendChunks(owner: RunConnection, built: BuiltRoot): void {
  for (let at = 0; at < built.chunks.length; at += 7) {
    const { headers, payload } = chunkFrame(built.chunks.slice(at, at + 7));
    call(owner, { type: "put-chunks", chunks: headers }, payload);
  }
}

const forged = (text: string) => ({ hash: sha256Hex(text), text });

/** The run server's cases. */
export const RUN_SERVER_CONTRACT: readonly ContractCase[] = [
  {
    name:
      "remote (RM-6): an empty database is bound to its admission; another admission is refused",
    run(seam) {
      new RunServer(seam, ADMISSION);
      const before = dump(seam);
      const other = new RunServer(seam, { ...ADMISSION, repositoryId: "R_other" }).connect();
      const { reply } = decodeReply(other.receive(frame({ type: "hello", role: "executor" })));
      check(reply.type === "error" && reply.code === "run.admission", "another repository");
      check(dump(seam) === before, "the refusal changed the database");
      const again = new RunServer(seam, ADMISSION).connect();
      check(call(again, { type: "hello", role: "executor" }).epoch === 1, "the first epoch");
    },
  },
  {
    name: "remote (RM-6): a damaged remote binding refuses every frame but ping, changing nothing",
    run(seam) {
      owned(seam);
      seam.exec("UPDATE xmd_remote SET links = 'not json'");
      const before = dump(seam);
      const connection = new RunServer(seam, ADMISSION).connect();
      for (const role of ["executor", "reader"] as const) {
        const { reply } = decodeReply(connection.receive(frame({ type: "hello", role })));
        check(reply.type === "error" && reply.code === "db.corrupt", `hello as ${role}`);
      }
      call(connection, { type: "ping" });
      check(dump(seam) === before, "the refusal changed the database");
    },
  },
  {
    name: "remote (RM-10): a stale frontier is refused for begin, commit and settle",
    run(seam) {
      const { owner, frontier } = owned(seam);
      const stale = { ...frontier, events: 1 };
      refused(seam, owner, "frontier.stale", { type: "begin", expected: stale }, "begin");
      refused(
        seam,
        owner,
        "frontier.stale",
        { type: "commit", expected: stale, event: logEvent(1), root: EMPTY_ROOT },
        "commit",
      );
      refused(
        seam,
        owner,
        "frontier.stale",
        { type: "settle", expected: stale, status: "completed", stopReason: null },
        "settle",
      );
    },
  },
  {
    name: "remote (RM-14): each commit check refuses its case and changes nothing",
    run(seam) {
      const { owner, frontier } = owned(seam);
      const built = buildRoot({ "a.txt": "a\n", sub: { "b.txt": "b\n" } });
      sendChunks(owner, built);
      const [fileA, fileB, sub, root] = built.objects;
      const chunksOfA: string[] = JSON.parse(fileA.text).chunks;
      const commit = (
        objects: { hash: string; text: string }[],
        rootHash = built.root,
        links?: string[][],
      ): Body => ({
        type: "commit",
        expected: frontier,
        event: logEvent(1),
        root: rootHash,
        objects,
        links,
      });
      const wrongKind = forged(
        treeObject([{ name: "sub", kind: "dir", mode: 0o755, ref: fileA.hash }]),
      );
      const oversize = forged(fileObject(3, chunksOfA));
      const sizeTree = forged(
        treeObject([{ name: "a.txt", kind: "file", mode: 0o644, ref: oversize.hash }]),
      );
      const spaced = forged(`{"chunks":${JSON.stringify(chunksOfA)}, "format":1,"size":2}`);
      const cases: [string, Body][] = [
        ["object.digest", commit([fileA, fileB, sub, { hash: root.hash, text: `${root.text} ` }])],
        ["object.malformed", commit([fileA, spaced, sub, root])],
        ["object.missing", commit([fileB, sub, root])],
        ["object.missing", commit([fileA, wrongKind], wrongKind.hash)],
        ["object.size", commit([oversize, sizeTree], sizeTree.hash)],
        ["object.unreachable", commit([...built.objects, forged(fileObject(0, []))])],
        ["links.invalid", commit(built.objects, built.root, [["a.txt", "sub/b.txt"]])],
      ];
      for (const [code, body] of cases) refused(seam, owner, code, body, code);
      const landed = call(owner, {
        type: "commit",
        expected: frontier,
        event: logEvent(1),
        root: built.root,
        objects: built.objects,
      });
      check(landed.frontier.root === built.root, "the sound commit landed");
    },
  },
  {
    name:
      "remote (RM-14): a commit whose append fails after its objects were stored leaves nothing",
    run(seam) {
      const { owner, frontier } = owned(seam);
      const built = buildRoot({ "kept.txt": "only if the event lands\n" });
      sendChunks(owner, built);
      // The objects pass every check and are stored; the append then finds no pending answer.
      refused(seam, owner, "run.state", {
        type: "commit",
        expected: frontier,
        event: {
          type: "yield",
          coroutineId: "root",
          description: {
            type: "suspension_answer",
            name: "<Elicit> release.md:3:1",
            as: "ok",
            suspensionId: "root:1",
          },
          result: { status: "ok", value: true },
        },
        root: built.root,
        objects: built.objects,
      }, "an append that fails inside the commit");
      const stored = seam.exec("SELECT count(*) AS n FROM ws_object WHERE hash = ?", built.root);
      check(stored[0].n === 0, "the root object was rolled back with the event");
    },
  },
  {
    name:
      "remote (RM-19): cancel, then delete leaves an empty database bound to the same admission",
    run(seam) {
      const { owner, frontier } = owned(seam);
      call(owner, {
        type: "settle",
        expected: frontier,
        status: "interrupted",
        stopReason: { kind: "host", code: "interrupted" },
      });
      call(owner, { type: "cancel" });
      call(owner, { type: "delete" });
      check(call(owner, { type: "read-run" }).run === null, "the run is gone");
      const tables = seam.exec("SELECT name FROM sqlite_master WHERE type = 'table'")
        .map((row) => String(row.name)).filter((name) => !name.startsWith("_cf_"));
      check(tables.includes("xmd_remote") && tables.includes("run"), "the schema is back");
      check(call(owner, { type: "create", run: newRun() }).frontier.events === 0, "created anew");
    },
  },
];
