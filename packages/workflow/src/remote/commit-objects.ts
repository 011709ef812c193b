/**
 * The checks a remote commit's Workspace objects pass before they are
 * stored, inside the commit's transaction, and their storage.
 *
 * Invariants:
 * - Every object the Durable Object stores has its complete closure stored:
 *   a commit's objects are checked against what is stored and what the same
 *   commit sends, so a stored root is always whole without ever verifying a
 *   whole root again. Each sent object hashes to its name, parses strictly
 *   as root format 1 and is its canonical text; each reference it adds
 *   names a stored or sent object of its kind (a chunk: a stored chunk);
 *   a file's chunks add up to its size; every sent object is reached from
 *   the new root through sent objects; hard-link groups fit the new root.
 * - The cost follows what was sent: a tree sent as a delta has only the
 *   entries it sets checked (its base's were checked when the base was
 *   stored), and a stored object's kind is read from its row's first bytes.
 * - A refusal is `RemoteProtocolError` naming an object by its position in
 *   the commit, never by content. Nothing is written until every check
 *   passed; then objects are stored through `storeObject`, each base first.
 *
 * @module
 */
import { sha256Hex } from "@xmd/core/protocol";
import type { SqlSeam } from "../sql/sql-seam.ts";
import type { HardLinkGroups } from "../workspace/hard-links.ts";
import { readObjectText, storeObject } from "../workspace/object-store.ts";
import { fileObject, type Sha256, type TreeEntry, treeObject } from "../workspace/root-format.ts";
import {
  type FileObject,
  FileObjectSchema,
  type TreeObject,
  TreeObjectSchema,
} from "../workspace/verify-root.ts";
import { compareUtf8 } from "../workspace/workspace.ts";
import type { SentObject } from "./frames.ts";
import { RemoteProtocolError } from "./remote-protocol-error.ts";
import { checkRow } from "./row-limit.ts";

type Entry = TreeObject["entries"][number];

/** A sent object, rebuilt to its full text and parsed. */
export type CheckedObject =
  & { hash: string; text: string; position: number }
  & (
    | { kind: "tree"; tree: TreeObject; base?: string; added: Entry[]; removed: string[] }
    | { kind: "file"; file: FileObject }
  );

/**
 * Rebuilds and checks each sent object on its own: its full text (a delta
 * applied to its base, stored or sent), its hash, strict parse and canonical
 * form, and the row bound. Reads only.
 */
export function checkObjects(
  sql: SqlSeam,
  objects: readonly SentObject[],
  where: string,
  sha256: Sha256 = sha256Hex,
): Map<string, CheckedObject> {
  const sent = new Set(objects.map((object) => object.hash));
  const checked = new Map<string, CheckedObject>();
  let pending = objects.map((object, position) => ({ object, position }));
  while (pending.length > 0) {
    const waiting: typeof pending = [];
    for (const item of pending) {
      if (checked.has(item.object.hash)) continue;
      const result = checkOne(sql, item.object, item.position, { sent, checked, where, sha256 });
      if (result) checked.set(result.hash, result);
      else waiting.push(item);
    }
    if (waiting.length === pending.length) {
      // Only bases that are each other's deltas remain: a cycle no text can satisfy.
      throw new RemoteProtocolError(
        "object.missing",
        `Cannot commit object ${waiting[0].position}: its base is neither stored nor sent`,
      );
    }
    pending = waiting;
  }
  return checked;
}

interface Checking {
  sent: ReadonlySet<string>;
  checked: ReadonlyMap<string, CheckedObject>;
  where: string;
  sha256: Sha256;
}

/** One object checked, or undefined while its base is a sent object not yet rebuilt. */
function checkOne(
  sql: SqlSeam,
  object: SentObject,
  position: number,
  context: Checking,
): CheckedObject | undefined {
  const refuse = (code: "object.digest" | "object.malformed" | "object.missing", state: string) =>
    new RemoteProtocolError(code, `Cannot commit object ${position}: ${state}`);
  if ("text" in object) {
    checkRow(object.text, `object ${position}`);
    if (context.sha256(object.text) !== object.hash) {
      throw refuse("object.digest", "it does not hash to its name");
    }
    const json = parseJson(object.text);
    // A canonical file object starts with its chunks: it is tried as a file first, so the usual
    // commit (a file and the trees above it) parses each object once. Either kind is parsed
    // strictly and must be its canonical text, whichever is tried first.
    const asFile = () => {
      const file = FileObjectSchema.safeParse(json);
      return file.success && fileObject(file.data.size, file.data.chunks) === object.text
        ? { ...object, position, kind: "file" as const, file: file.data }
        : undefined;
    };
    const first = object.text.startsWith(FILE_PREFIX) ? asFile() : undefined;
    if (first) return first;
    const tree = TreeObjectSchema.safeParse(json);
    if (tree.success && treeText(tree.data.entries) === object.text) {
      const { entries } = tree.data;
      return { ...object, position, kind: "tree", tree: tree.data, added: entries, removed: [] };
    }
    const file = asFile();
    if (file) return file;
    throw refuse("object.malformed", "it is not a canonical object of root format 1");
  }
  let base: TreeObject;
  const sentBase = context.checked.get(object.base);
  if (sentBase) {
    if (sentBase.kind !== "tree") throw refuse("object.missing", "its base is not a tree");
    base = sentBase.tree;
  } else if (context.sent.has(object.base)) {
    return undefined;
  } else {
    const text = readObjectText(sql, object.base, context.where, context.sha256);
    if (text === undefined) throw refuse("object.missing", "its base is neither stored nor sent");
    const parsed = TreeObjectSchema.safeParse(parseJson(text));
    if (!parsed.success) throw refuse("object.missing", "its base is not a tree");
    base = parsed.data;
  }
  const entries = new Map(base.entries.map((entry) => [entry[0], entry]));
  for (const name of object.remove) {
    if (!entries.delete(name)) throw refuse("object.malformed", "it removes a name its base lacks");
  }
  for (const entry of object.set) entries.set(entry[0], entry);
  const text = treeText([...entries.values()]);
  checkRow(text, `object ${position}`);
  if (context.sha256(text) !== object.hash) {
    throw refuse("object.digest", "it does not hash to its name");
  }
  const tree = TreeObjectSchema.safeParse(parseJson(text));
  if (!tree.success) {
    throw refuse("object.malformed", "it is not a canonical object of root format 1");
  }
  return {
    hash: object.hash,
    text,
    position,
    kind: "tree",
    tree: tree.data,
    base: object.base,
    added: object.set,
    removed: object.remove,
  };
}

/**
 * Checks that `root` is a tree whose every new reference exists with its
 * kind, walking sent objects from it (stored ones are whole), that file
 * sizes add up, and that every sent object is reached. `carried` holds the
 * length of each chunk the commit itself carried (checked against its name
 * and stored in the same transaction), which need no read. Reads only.
 */
export function checkReachable(
  sql: SqlSeam,
  objects: ReadonlyMap<string, CheckedObject>,
  root: string,
  carried: ReadonlyMap<string, number> = new Map(),
): void {
  const reached = new Set<string>();
  const trees: string[] = [];
  const need = (hash: string, kind: "tree" | "file", from: string) => {
    const sent = objects.get(hash);
    if (sent) {
      if (sent.kind !== kind) throw wrongKind(from);
      if (reached.has(hash)) return;
      reached.add(hash);
      if (sent.kind === "tree") trees.push(hash);
      else checkChunks(sql, sent, carried);
      return;
    }
    if (storedKind(sql, hash) !== kind) throw wrongKind(from);
  };
  need(root, "tree", "the new root");
  for (let hash = trees.pop(); hash !== undefined; hash = trees.pop()) {
    const tree = objects.get(hash);
    if (tree?.kind !== "tree") continue;
    for (const [, kind, , ref] of tree.added) {
      const from = `object ${tree.position}`;
      if (kind === "dir") need(ref, "tree", from);
      else if (kind === "file") need(ref, "file", from);
      else if (ref.includes("\0")) {
        throw new RemoteProtocolError(
          "object.malformed",
          `Cannot commit ${from}: a symbolic link's target holds a NUL`,
        );
      }
    }
  }
  for (const object of objects.values()) {
    if (!reached.has(object.hash)) {
      throw new RemoteProtocolError(
        "object.unreachable",
        `Cannot commit object ${object.position}: the new root does not reach it`,
      );
    }
  }
}

/** Checks a sent file's chunks are stored (or carried) and add up to its size. */
function checkChunks(
  sql: SqlSeam,
  object: CheckedObject & { kind: "file" },
  carried: ReadonlyMap<string, number>,
): void {
  let size = 0;
  for (const chunk of object.file.chunks) {
    const length = carried.get(chunk);
    if (length !== undefined) {
      size += length;
      continue;
    }
    const row = sql.exec("SELECT length(data) AS n FROM ws_chunk WHERE hash = ?", chunk)[0];
    if (row === undefined) {
      throw new RemoteProtocolError(
        "object.missing",
        `Cannot commit object ${object.position}: it names a chunk that was not sent ahead`,
      );
    }
    size += Number(row.n);
  }
  if (size !== object.file.size) {
    throw new RemoteProtocolError(
      "object.size",
      `Cannot commit object ${object.position}: its chunks do not add up to its size`,
    );
  }
}

/** The kind of stored object `hash`, from its row's first bytes (it was checked when stored). */
function storedKind(sql: SqlSeam, hash: string): "tree" | "file" | undefined {
  const row = sql.exec(
    "SELECT base IS NOT NULL AS delta, substr(body, 1, 11) AS head FROM ws_object WHERE hash = ?",
    hash,
  )[0];
  if (row === undefined) return undefined;
  // Only trees are stored as deltas.
  if (row.delta === 1 || row.head === '{"entries":') return "tree";
  return row.head === '{"chunks":[' ? "file" : undefined;
}

function wrongKind(from: string): RemoteProtocolError {
  return new RemoteProtocolError(
    "object.missing",
    `Cannot commit ${from}: it references an object that is neither stored nor sent with its kind`,
  );
}

/**
 * Checks that `links` fit root `root`: each path names a file, and the
 * paths of a group name the same file object with the same mode. Reads only.
 */
export function checkLinks(
  sql: SqlSeam,
  objects: ReadonlyMap<string, CheckedObject>,
  root: string,
  links: HardLinkGroups,
  where: string,
  sha256: Sha256 = sha256Hex,
): void {
  const entryAt = (path: string): Entry | undefined => {
    let tree = root;
    const names = path.split("/");
    for (let i = 0; i < names.length; i++) {
      const entry = treeOf(sql, objects, tree, where, sha256).entries.find((e) =>
        e[0] === names[i]
      );
      if (entry === undefined || i === names.length - 1) return entry;
      if (entry[1] !== "dir") return undefined;
      tree = entry[3];
    }
    return undefined;
  };
  for (const group of links) {
    const first = entryAt(group[0]);
    for (const path of group) {
      const entry = entryAt(path);
      if (entry?.[1] !== "file" || entry[2] !== first?.[2] || entry[3] !== first[3]) {
        throw new RemoteProtocolError(
          "links.invalid",
          "Cannot commit hard-link groups that do not fit the new root",
        );
      }
    }
  }
}

function treeOf(
  sql: SqlSeam,
  objects: ReadonlyMap<string, CheckedObject>,
  hash: string,
  where: string,
  sha256: Sha256,
): TreeObject {
  const sent = objects.get(hash);
  if (sent?.kind === "tree") return sent.tree;
  const parsed = TreeObjectSchema.safeParse(
    parseJson(readObjectText(sql, hash, where, sha256) ?? ""),
  );
  return parsed.success ? parsed.data : { entries: [], format: 1 };
}

/** Stores every checked object, each delta's base before it (within the caller's transaction). */
export function storeObjects(sql: SqlSeam, objects: ReadonlyMap<string, CheckedObject>): void {
  const stored = new Set<string>();
  const store = (object: CheckedObject) => {
    if (stored.has(object.hash)) return;
    const chain: CheckedObject[] = [];
    for (let at: CheckedObject | undefined = object; at && !stored.has(at.hash);) {
      chain.push(at);
      at = at.kind === "tree" && at.base !== undefined ? objects.get(at.base) : undefined;
    }
    for (const item of chain.reverse()) {
      stored.add(item.hash);
      if (item.kind === "tree" && item.base !== undefined) {
        const set = [...item.added].sort((a, b) => compareUtf8(a[0], b[0]))
          .map((entry) => JSON.stringify(entry));
        const remove = [...item.removed].sort(compareUtf8);
        storeObject(sql, item.hash, item.text, { base: item.base, set, remove });
      } else storeObject(sql, item.hash, item.text);
    }
  };
  for (const object of objects.values()) store(object);
}

function treeText(entries: readonly Entry[]): string {
  const rows: TreeEntry[] = entries.map(([name, kind, mode, ref]) => ({ name, kind, mode, ref }));
  return treeObject(rows);
}

/** How a file object's canonical text (root format 1) begins. */
const FILE_PREFIX = '{"chunks":[';

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
