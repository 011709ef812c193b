import { sha256Hex } from "@xmd/core/protocol";
import assert from "node:assert/strict";
import { nativeSha256Hex } from "../deno/native-sha256.ts";
import { portableSha256, type Sha256, type TreeEntry, treeObject } from "./root-format.ts";
import { hashTreeText, SPACING, type TreeHash } from "./tree-hash.ts";
import { PatchedTreeText, type TreeText, treeTextOf } from "./tree-text.ts";
import { compareUtf8 } from "./workspace.ts";

const REF = "0123456789abcdef".repeat(4);
const entryJson = (entry: TreeEntry) =>
  JSON.stringify([entry.name, entry.kind, entry.mode, entry.ref]);
const file = (name: string, ref = REF): TreeEntry => ({ name, kind: "file", mode: 420, ref });

/** A tree of `entries` with its hash computed from nothing, as a tree read from storage is. */
interface Hashed {
  tree: TreeText;
  hashed: TreeHash;
  live: Map<string, TreeEntry>;
}

function fresh(entries: readonly TreeEntry[], sha256: Sha256): Hashed {
  const sorted = [...entries].sort((a, b) => compareUtf8(a.name, b.name));
  const tree = treeTextOf(sorted.map((e) => e.name), sorted.map(entryJson));
  const live = new Map(sorted.map((e) => [e.name, e]));
  return { tree, hashed: hashTreeText(tree, sha256), live };
}

/**
 * Patches `from` by `change`, hashes the result resumed from `from`'s states
 * and checks the hash against the one-shot SHA-256 of the reference encoding.
 */
function patched(
  from: Hashed,
  sha256: Sha256,
  change: (patch: PatchedTreeText, live: Map<string, TreeEntry>) => void,
  label: string,
): Hashed {
  const patch = new PatchedTreeText(from.tree);
  const live = new Map(from.live);
  change(patch, live);
  const tree = patch.done();
  const resume = { checkpoints: from.hashed.checkpoints, unchanged: patch.unchanged };
  const hashed = hashTreeText(tree, sha256, resume);
  assert.equal(tree.text, treeObject([...live.values()]), label);
  assert.equal(hashed.hash, sha256Hex(tree.text), label);
  return { tree, hashed, live };
}

const set = (entry: TreeEntry) => (patch: PatchedTreeText, live: Map<string, TreeEntry>) => {
  patch.set(entry.name, entryJson(entry));
  live.set(entry.name, entry);
};
const remove = (name: string) => (patch: PatchedTreeText, live: Map<string, TreeEntry>) => {
  patch.remove(name);
  live.delete(name);
};

/** 200 entries, 18 KB of text: several states saved, entries straddling each spacing. */
const NAMES = Array.from({ length: 200 }, (_, i) => `n${String(i).padStart(4, "0")}.txt`);

for (
  const [label, sha256] of [["portable", portableSha256], ["native", nativeSha256Hex]] as const
) {
  Deno.test(`WS-114: a ${label} resumed tree hash equals the one-shot hash at every position`, () => {
    const base = fresh(NAMES.map((name) => file(name)), sha256);
    assert.ok(base.hashed.checkpoints.length >= 3, "the text crosses several spacings");
    assert.ok(base.tree.text.length > 4 * SPACING);
    for (let at = 0; at <= NAMES.length; at++) {
      // A new name sorting before entry `at` (the first position, every middle one, the last).
      const name = at === 0 ? "m" : `${NAMES[at - 1]}+`;
      const grown = patched(base, sha256, set(file(name)), `insert at ${at}`);
      assert.equal(grown.tree.names.indexOf(name), at);
      // Then, from the grown tree's own saved states: a changed entry, a removal, a rename.
      const other = `${"f".repeat(64)}`;
      patched(grown, sha256, set(file(name, other)), `replace at ${at}`);
      patched(grown, sha256, remove(name), `remove at ${at}`);
      const target = NAMES[(at * 37) % NAMES.length] + "-renamed";
      patched(grown, sha256, (patch, live) => {
        remove(name)(patch, live);
        set(file(target))(patch, live);
      }, `rename from ${at}`);
    }
    for (let at = 0; at < NAMES.length; at++) {
      patched(base, sha256, remove(NAMES[at]), `remove entry ${at}`);
    }
  });

  Deno.test(`WS-114: a ${label} tree hash stays equal over a long walk of resumed versions`, () => {
    let seed = 11;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    // Names of several UTF-8 widths, with surrogate pairs, so states fall beside wide characters.
    const pool = Array.from(
      { length: 400 },
      (_, i) => `${["a", "é", "日本", "😀", "Z"][i % 5]}${i}`,
    );
    let current = fresh([], sha256);
    for (let version = 0; version < 600; version++) {
      const changes = 1 + Math.floor(next() * 3);
      current = patched(current, sha256, (patch, live) => {
        for (let i = 0; i < changes; i++) {
          const name = pool[Math.floor(next() * pool.length)];
          if (next() < 0.25) remove(name)(patch, live);
          else set(file(name, String(version).padStart(64, "0")))(patch, live);
        }
      }, `version ${version}`);
    }
    assert.ok(current.hashed.checkpoints.length >= 3);
  });
}

Deno.test("WS-114: a name added at a large tree's end hashes about one spacing, not the tree", () => {
  let hashed = 0;
  const counting: Sha256 = Object.assign((data: string | Uint8Array) => sha256Hex(data), {
    begin: () => {
      const state = portableSha256.begin!();
      return {
        update(text: string) {
          hashed += text.length;
          state.update(text);
        },
        copy: () => state.copy(),
        hex: () => state.hex(),
      };
    },
  });
  const base = fresh(NAMES.map((name) => file(name)), counting);
  assert.equal(hashed, base.tree.text.length);
  hashed = 0;
  patched(base, counting, set(file("z-last")), "append");
  assert.ok(hashed < SPACING + 200, `${hashed} characters hashed again`);
  // An implementation that cannot save states hashes the whole text.
  const oneShot: Sha256 = (data) => sha256Hex(data);
  const plain = fresh(NAMES.map((name) => file(name)), oneShot);
  assert.deepEqual(plain.hashed.checkpoints, []);
  patched(plain, oneShot, set(file("z-last")), "append, one-shot");
});
