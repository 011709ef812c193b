import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { publishRoot } from "../workspace/publish-root.ts";
import { type RootEntry, walkRoot } from "../workspace/walk-root.ts";
import { Workspace } from "../workspace/workspace.ts";
import { exportDirectory } from "./export-directory.ts";
import { NodeSqliteSeam } from "./node-sqlite-seam.ts";

const MiB = 1024 * 1024;

Deno.test("WS-71 an export writes each chunk of a file to the host file before it reads the next", async () => {
  const seam = new NodeSqliteSeam(new DatabaseSync(":memory:"));
  seam.transaction(() => Workspace.initialize(seam));
  const ws = new Workspace(seam);
  const bytes = new Uint8Array(3 * MiB + 5).map((_, i) => (i * 13) % 251);
  ws.mkdir("/d");
  ws.writeFile("/d/big.bin", bytes);
  const root = seam.transaction(() => publishRoot(seam));
  const parent = await Deno.makeTempDir();
  try {
    const target = `${parent}/out`;
    // The host file's size each time the export asks for the next chunk.
    const sizes: number[] = [];
    const stagedFile = () => {
      const stage = [...Deno.readDirSync(parent)].find((e) => e.name.startsWith(".xmd-export-"));
      return `${parent}/${stage!.name}/d/big.bin`;
    };
    const observed = (entry: RootEntry): RootEntry =>
      entry.kind !== "file" ? entry : {
        ...entry,
        *chunks() {
          for (const chunk of entry.chunks()) {
            sizes.push(Deno.statSync(stagedFile()).size);
            yield chunk;
          }
        },
      };
    const counts = await exportDirectory(
      [...walkRoot(seam, root)].map(observed),
      [],
      target,
    );
    assert.deepEqual(counts, { directories: 1, files: 1, symlinks: 0, hardLinks: 0 });
    assert.deepEqual(sizes, [0, MiB, 2 * MiB, 3 * MiB]);
    assert.deepEqual(await Deno.readFile(`${target}/d/big.bin`), bytes);
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
});

Deno.test("WS-91: an export of many files gives the event loop turns: a timer set as it starts writing fires before it ends", async () => {
  const seam = new NodeSqliteSeam(new DatabaseSync(":memory:"));
  seam.transaction(() => Workspace.initialize(seam));
  const ws = new Workspace(seam);
  for (let i = 0; i < 600; i++) ws.writeFile(`/f${i}.txt`, new TextEncoder().encode(`${i}`));
  const root = seam.transaction(() => publishRoot(seam));
  const parent = await Deno.makeTempDir();
  try {
    let written = 0;
    let firedAfter: number | undefined;
    // Set once the export writes its first file: the calls before that (the target checked, the
    // staging folder made) are asynchronous and would let it fire whatever the loop does.
    const counting = (entry: RootEntry): RootEntry =>
      entry.kind !== "file" ? entry : {
        ...entry,
        *chunks() {
          if (++written === 1) setTimeout(() => firedAfter = written, 0);
          yield* entry.chunks();
        },
      };
    const counts = await exportDirectory(
      [...walkRoot(seam, root)].map(counting),
      [],
      `${parent}/out`,
    );
    assert.equal(counts.files, 600);
    assert.ok(firedAfter !== undefined && firedAfter < 600, `the timer fired after ${firedAfter}`);
    assert.equal(await Deno.readTextFile(`${parent}/out/f599.txt`), "599");
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
});
