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
