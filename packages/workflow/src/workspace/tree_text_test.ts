import assert from "node:assert/strict";
import { type TreeEntry, treeObject } from "./root-format.ts";
import { PatchedTreeText, type TreeText, treeTextOf } from "./tree-text.ts";

const entryJson = (entry: TreeEntry) =>
  JSON.stringify([entry.name, entry.kind, entry.mode, entry.ref]);

/** A small deterministic generator, so a failure repeats. */
function generator(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

Deno.test("WS-111: a tree patched name by name is the reference encoding of its entries", () => {
  const random = generator(7);
  // Names of several lengths and UTF-8 widths, so order and offsets are both exercised.
  const pool = ["a", "b", "é", "z", "aa", "ab", "Z", "日本", "x.txt", "10", "9", "😀", "a b"];
  for (let round = 0; round < 40; round++) {
    const live = new Map<string, TreeEntry>();
    let tree: TreeText = treeTextOf([], []);
    for (let step = 0; step < 30; step++) {
      const patch = new PatchedTreeText(tree);
      for (let change = 0; change < 1 + Math.floor(random() * 3); change++) {
        const name = pool[Math.floor(random() * pool.length)];
        if (random() < 0.3) {
          patch.remove(name);
          live.delete(name);
        } else {
          const entry: TreeEntry = { name, kind: "file", mode: 420, ref: String(step).repeat(3) };
          patch.set(name, entryJson(entry));
          live.set(name, entry);
        }
        assert.equal(patch.entry(name), live.has(name) ? entryJson(live.get(name)!) : undefined);
      }
      const before = structuredClone(tree);
      const from = tree;
      tree = patch.done();
      // The tree it was patched from is left as it was.
      assert.deepEqual(from, before);
      // What it reports unchanged is a prefix both texts share (WS-114 resumes from it).
      assert.equal(tree.text.slice(0, patch.unchanged), from.text.slice(0, patch.unchanged));
      assert.equal(tree.text, treeObject([...live.values()]));
      const rebuilt = treeTextOf(tree.names, tree.names.map((name) => entryJson(live.get(name)!)));
      assert.deepEqual(tree.offsets, rebuilt.offsets);
    }
  }
});
