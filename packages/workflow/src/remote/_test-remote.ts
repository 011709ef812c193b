/**
 * Test support for the remote protocol, shared by the node:sqlite tests and
 * the workerd test Worker (so it uses no Deno API): a fixed admission, a
 * valid new run, Workspace objects built by hand from root format 1, a
 * client over any transport, and the fuzz corpus of hostile frames.
 *
 * @module
 */
import { canonicalJson, type JournalEvent, sha256Hex } from "@xmd/core/protocol";
import type { NewRun } from "../store/run-store.ts";
import { fileObject, treeObject } from "../workspace/root-format.ts";
import type { TreeEntry } from "../workspace/root-format.ts";
import { CHUNK_SIZE } from "../workspace/workspace-tables.ts";
import {
  type ChunkHeader,
  decodeReply,
  encodeMessage,
  encodeRequest,
  type Frontier,
  MAX_MESSAGE_BYTES,
  type Reply,
  type Request,
  type SentObject,
} from "./frames.ts";
import { definitionHashOf } from "./new-run-checks.ts";
import type { Admission } from "./remote-table.ts";

/** The admission every test run is bound to. */
export const ADMISSION: Admission = {
  runId: "remote-run",
  githubHost: "github.com",
  issueNodeId: "I_kwDOAAAAAAAAAAAA",
  repositoryId: "R_kgDOAAAAAA",
};

/** A valid new run for `ADMISSION`, or for the admission of run `id`. */
export function newRun(id: string = ADMISSION.runId): NewRun {
  const sources = [{ label: "release.md", text: "# Release\n\n<Log>hi</Log>\n", root: true }];
  const props = { version: "1.2.3" };
  return {
    id,
    document: "release.md",
    target: null,
    definitionHash: definitionHashOf(sources, null),
    props,
    propsHash: sha256Hex(canonicalJson(props)),
    sources,
  };
}

/** A journal event, the `n`th of a document. */
export function logEvent(n: number): JournalEvent {
  return {
    type: "yield",
    coroutineId: "root",
    description: { type: "log", name: `<Log> release.md:${n}:1` },
    result: { status: "ok", value: n },
  };
}

/** A Workspace built by hand: its root, the objects and the chunks that make it. */
export interface BuiltRoot {
  root: string;
  /** Every object, children before parents. */
  objects: { hash: string; text: string }[];
  chunks: { hash: string; data: Uint8Array }[];
}

/** A directory of a hand-built Workspace: files by name (bytes or text), subdirectories as objects. */
export interface Tree {
  [name: string]: string | Uint8Array | Tree | { symlink: string };
}

/** Builds the root-format-1 objects of `tree`. */
export function buildRoot(tree: Tree): BuiltRoot {
  const built: BuiltRoot = { root: "", objects: [], chunks: [] };
  built.root = buildTree(tree, built);
  return built;
}

function buildTree(tree: Tree, built: BuiltRoot): string {
  const entries: TreeEntry[] = [];
  for (const [name, value] of Object.entries(tree)) {
    if (typeof value === "string" || value instanceof Uint8Array) {
      const data = typeof value === "string" ? new TextEncoder().encode(value) : value;
      const chunks: string[] = [];
      for (let at = 0; at < data.length; at += CHUNK_SIZE) {
        const chunk = data.slice(at, at + CHUNK_SIZE);
        const hash = sha256Hex(chunk);
        chunks.push(hash);
        built.chunks.push({ hash, data: chunk });
      }
      const text = fileObject(data.length, chunks);
      built.objects.push({ hash: sha256Hex(text), text });
      entries.push({ name, kind: "file", mode: 0o644, ref: sha256Hex(text) });
    } else if ("symlink" in value && typeof value.symlink === "string") {
      entries.push({ name, kind: "symlink", mode: 0o777, ref: value.symlink });
    } else {
      entries.push({ name, kind: "dir", mode: 0o755, ref: buildTree(value as Tree, built) });
    }
  }
  const text = treeObject(entries);
  built.objects.push({ hash: sha256Hex(text), text });
  return sha256Hex(text);
}

/** The root of an empty Workspace. */
export const EMPTY_ROOT: string = sha256Hex(treeObject([]));

/** A transport: sends one message, resolves with the reply's bytes. */
export type Send = (message: Uint8Array | string) => Promise<Uint8Array>;

/** A request without its envelope. */
export type Body = Request extends infer R ? R extends Request ? Omit<R, "v" | "id"> : never
  : never;

let nextId = 1;

/** Encodes `body` as a request with a fresh id. */
export function frame(body: Body, payload?: Uint8Array): Uint8Array {
  return encodeRequest({ v: 1, id: nextId++, ...body } as Request, payload);
}

/** Sends `body`, decodes the reply, and throws unless it is of the request's type. */
export async function call<T extends Request["type"]>(
  send: Send,
  body: Extract<Body, { type: T }>,
  payload?: Uint8Array,
): Promise<Extract<Reply, { type: T }> & { payload: Uint8Array }> {
  const { reply, payload: received } = decodeReply(await send(frame(body, payload)));
  if (reply.type !== body.type) {
    throw new Error(
      `${body.type} answered ${reply.type}${
        reply.type === "error" ? ` ${reply.code}: ${reply.message}` : ""
      }`,
    );
  }
  return { ...reply, payload: received } as Extract<Reply, { type: T }> & { payload: Uint8Array };
}

/** Sends `body` and returns the refusal's code, throwing when it was not refused. */
export async function refusedCode(send: Send, message: Uint8Array | string): Promise<string> {
  const { reply } = decodeReply(await send(message));
  if (reply.type !== "error") throw new Error(`expected a refusal, got ${reply.type}`);
  return reply.code;
}

/** The put-chunks frame parts for `chunks`. */
export function chunkFrame(
  chunks: readonly { hash: string; data: Uint8Array }[],
): { headers: ChunkHeader[]; payload: Uint8Array } {
  const payload = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.data.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    payload.set(chunk.data, offset);
    offset += chunk.data.length;
  }
  return { headers: chunks.map((c) => ({ hash: c.hash, length: c.data.length })), payload };
}

/** Sends every chunk of `built` ahead, at most 7 per frame. */
export async function sendChunks(send: Send, built: BuiltRoot): Promise<void> {
  for (let at = 0; at < built.chunks.length; at += 7) {
    const { headers, payload } = chunkFrame(built.chunks.slice(at, at + 7));
    await call(send, { type: "put-chunks", chunks: headers }, payload);
  }
}

/** Commits `built` as the Workspace after event `frontier.events + 1`; returns the new frontier. */
export async function commitRoot(
  send: Send,
  frontier: Frontier,
  built: BuiltRoot,
  objects: SentObject[] = built.objects,
): Promise<Frontier> {
  await sendChunks(send, built);
  const reply = await call(send, {
    type: "commit",
    expected: frontier,
    event: logEvent(frontier.events + 1),
    root: built.root,
    objects,
  });
  return reply.frontier;
}

/** A small deterministic generator (mulberry32), so a failing corpus can be replayed. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Which connection a corpus frame goes to. */
export type Lane = "owner" | "reader" | "fresh";

/** One hostile frame, and whether it must be refused (a bit flip may leave a harmless read). */
export interface FuzzFrame {
  lane: Lane;
  message: Uint8Array | string;
  mustRefuse: boolean;
  kind: string;
}

/**
 * `count` hostile frames against a run at `frontier` (owned by the `owner`
 * lane, with `reader` a reader and `fresh` a connection that said nothing):
 * truncated, bit-flipped, wrong types, oversized, `v:2`, text, out of order,
 * foreign role, wrong digests, and commits that fail each check. None of
 * them may change the run.
 */
export function fuzzCorpus(seed: number, count: number, frontier: Frontier): FuzzFrame[] {
  const next = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)];
  const stale: Frontier = { ...frontier, events: frontier.events + 3, root: "f".repeat(64) };
  const good = buildRoot({ "fuzz.txt": "fuzz\n", sub: { "deep.txt": "deep\n" } });
  const extra = buildRoot({ "other.txt": "other\n" });
  const rootObject = good.objects[good.objects.length - 1];
  const commit = (
    objects: SentObject[],
    expected = frontier,
    root = good.root,
  ): Extract<Body, { type: "commit" }> => ({
    type: "commit",
    expected,
    event: logEvent(frontier.events + 1),
    root,
    objects,
  });
  const wrongHash = (object: { hash: string; text: string }) => ({
    hash: sha256Hex(`${object.text} `),
    text: object.text,
  });
  // Valid frames that only an owner may send: refused on the reader's lane.
  const mutations: Body[] = [
    commit(good.objects),
    { type: "create", run: newRun() },
    { type: "begin", expected: frontier },
    { type: "settle", expected: frontier, status: "completed", stopReason: null },
    { type: "cancel" },
    { type: "delete" },
    { type: "put-objects", objects: good.objects },
    {
      type: "put-chunks",
      chunks: chunkFrame(good.chunks.slice(0, 1)).headers,
    },
  ];
  // Frames the owner sends that fail one commit check each, with the right frontier.
  const wrongOnOwner: [string, Body, Uint8Array?][] = [
    ["stale frontier", commit(good.objects, stale)],
    ["wrong digest", commit([...good.objects.slice(0, -1), wrongHash(rootObject)])],
    ["missing child", commit(good.objects.slice(1))],
    ["unreachable object", commit([...good.objects, ...extra.objects])],
    ["missing chunk", commit(extra.objects, frontier, extra.root)],
    ["missing root", commit([], frontier, "e".repeat(64))],
    [
      "not canonical",
      commit(
        [{ hash: sha256Hex('{"format":1,"entries":[]}'), text: '{"format":1,"entries":[]}' }],
        frontier,
        sha256Hex('{"format":1,"entries":[]}'),
      ),
    ],
    ["file as root", commit([good.objects[0]], frontier, good.objects[0].hash)],
    [
      "delta on unknown base",
      commit([{ hash: good.root, base: "d".repeat(64), remove: [], set: [] }]),
    ],
    ["links that do not fit", { ...commit(good.objects), links: [["fuzz.txt", "nope.txt"]] }],
    ["wrong digest objects", { type: "put-objects", objects: [wrongHash(rootObject)] }],
    ["settle suspended without a question", {
      type: "settle",
      expected: frontier,
      status: "suspended",
      stopReason: null,
    }],
    ["second create", { type: "create", run: newRun() }],
    ["begin while running", { type: "begin", expected: frontier }],
    ["answer while running", { type: "answer", suspensionId: "root:1", value: true }],
    ["cancel while running", { type: "cancel" }],
    ["hello twice", { type: "hello", role: "executor" }],
  ];
  const reads: Body[] = [
    { type: "read-run" },
    { type: "read-events", from: 1, limit: 10 },
    { type: "get-objects", hashes: [frontier.root] },
    { type: "get-chunks", hashes: ["0".repeat(64)] },
    { type: "ping" },
  ];
  const header = (value: unknown, payload = new Uint8Array(0)) =>
    encodeMessage(value as object, payload);
  const malformed: (() => Uint8Array | string)[] = [
    () => header({ v: 2, id: 1, type: "ping" }),
    () => header({ v: 1, id: 1, type: "no-such-type" }),
    () => header({ v: 1, id: 1, type: "ping", extra: 1 }),
    () => header({ v: 1, id: -1, type: "ping" }),
    () => header({ v: 1, id: "1", type: "ping" }),
    () => header([1, 2, 3]),
    () => header(null),
    () => header({ v: 1, id: 1, type: "read-events", from: "1", limit: 10 }),
    () => header({ v: 1, id: 1, type: "read-events", from: 1, limit: 1001 }),
    () =>
      header({ v: 1, id: 1, type: "get-objects", hashes: new Array(4097).fill("a".repeat(64)) }),
    () => header({ v: 1, id: 1, type: "get-chunks", hashes: new Array(8).fill("a".repeat(64)) }),
    () =>
      header({
        v: 1,
        id: 1,
        type: "commit",
        expected: { execution: "1", events: 0, root: frontier.root },
        event: logEvent(1),
        root: frontier.root,
      }),
    () =>
      header({
        v: 1,
        id: 1,
        type: "commit",
        expected: frontier,
        event: { type: "yield" },
        root: frontier.root,
      }),
    () =>
      header({
        v: 1,
        id: 1,
        type: "put-chunks",
        chunks: [{ hash: "a".repeat(64), length: CHUNK_SIZE + 1 }],
      }),
    () =>
      header(
        { v: 1, id: 1, type: "put-chunks", chunks: [{ hash: "a".repeat(64), length: 4 }] },
        new Uint8Array(3),
      ),
    () => header({ v: 1, id: 1, type: "ping" }, new Uint8Array(1)),
    () => header({ v: 1, id: 1, type: "hello", role: "admin" }),
    () => "a text frame",
    () => new Uint8Array([0, 0, 0]),
    () => new Uint8Array([0xff, 0xff, 0xff, 0xff, 1, 2]),
    () => new Uint8Array([0, 0, 0, 2, 0xc3, 0x28]),
    () => new Uint8Array([0, 0, 0, 2, 0x7b, 0x7b]),
    () => {
      const deep = "[".repeat(200_000) + "]".repeat(200_000);
      const text = `{"v":1,"id":1,"type":"answer","suspensionId":"x","value":${deep}}`;
      const json = new TextEncoder().encode(text);
      const message = new Uint8Array(4 + json.length);
      new DataView(message.buffer).setUint32(0, json.length);
      message.set(json, 4);
      return message;
    },
  ];
  const flip = (message: Uint8Array) => {
    const copy = message.slice();
    const flips = 1 + Math.floor(next() * 3);
    for (let i = 0; i < flips; i++) {
      const at = Math.floor(next() * copy.length);
      copy[at] ^= 1 << Math.floor(next() * 8);
    }
    return copy;
  };
  const corpus: FuzzFrame[] = [];
  let oversized = 0;
  while (corpus.length < count) {
    const roll = next();
    if (roll < 0.15) {
      const [kind, body, payload] = pick(wrongOnOwner);
      corpus.push({ lane: "owner", message: frame(body, payload), mustRefuse: true, kind });
    } else if (roll < 0.3) {
      corpus.push({
        lane: "reader",
        message: frame(pick(mutations)),
        mustRefuse: true,
        kind: "foreign role",
      });
    } else if (roll < 0.4) {
      const body = pick([...reads, ...mutations, { type: "hello", role: "reader" } as Body]);
      const message = frame(body);
      // Cut before the end: the header or payload is incomplete.
      const cut = Math.floor(next() * message.length);
      corpus.push({
        lane: pick(["owner", "reader", "fresh"]),
        message: message.slice(0, cut),
        mustRefuse: true,
        kind: "truncated",
      });
    } else if (roll < 0.6) {
      // Flipped bits of frames that are refused whatever the flip leaves of them.
      const lane = pick<Lane>(["reader", "owner"]);
      const base = lane === "reader" ? frame(pick(mutations)) : frame(commit(good.objects, stale));
      corpus.push({ lane, message: flip(base), mustRefuse: false, kind: "bit-flipped" });
    } else if (roll < 0.8) {
      corpus.push({
        lane: pick(["owner", "reader", "fresh"]),
        message: pick(malformed)(),
        mustRefuse: true,
        kind: "malformed",
      });
    } else if (roll < 0.9) {
      const body = pick([...reads.slice(0, 4), ...mutations]);
      corpus.push({ lane: "fresh", message: frame(body), mustRefuse: true, kind: "before hello" });
    } else if (roll < 0.95) {
      corpus.push({
        lane: "fresh",
        message: frame({ type: "hello", role: "executor" }),
        mustRefuse: true,
        kind: "second executor",
      });
    } else if (oversized < 3) {
      oversized++;
      corpus.push({
        lane: pick(["owner", "reader"]),
        message: new Uint8Array(MAX_MESSAGE_BYTES + 1),
        mustRefuse: true,
        kind: "oversized",
      });
    } else {
      corpus.push({ lane: "owner", message: frame(pick(reads)), mustRefuse: false, kind: "read" });
    }
  }
  return corpus;
}
