import assert from "node:assert/strict";
import { dirname } from "node:path";
import { DocumentError } from "../document/document-error.ts";
import { DocumentReadError, loadProgramFile, typedPositions } from "./program-files.ts";

/** A temporary folder holding `files`, removed when the scope ends. */
async function folderWith(
  files: Record<string, string>,
): Promise<AsyncDisposable & { path: string }> {
  const path = await Deno.makeTempDir({ prefix: "xmd-program-files-" });
  for (const [name, text] of Object.entries(files)) {
    await Deno.mkdir(dirname(`${path}/${name}`), { recursive: true });
    await Deno.writeTextFile(`${path}/${name}`, text);
  }
  return {
    path,
    async [Symbol.asyncDispose]() {
      await Deno.remove(path, { recursive: true });
    },
  };
}

Deno.test("MDX-62 loadProgramFile reads the root from cwd and its components beside it, by label", async () => {
  await using folder = await folderWith({
    "docs/release.md": "Release.\n\n<Note />\n",
    "docs/components/Note.md": "A note.\n",
  });
  const program = await loadProgramFile("docs/release.md", { cwd: folder.path });
  assert.equal(program.root.file, "release.md");
  assert.deepEqual(
    [...program.sources].sort(),
    [["components/Note.md", "A note.\n"], ["release.md", "Release.\n\n<Note />\n"]],
  );
  // An absolute path ignores cwd.
  const absolute = await loadProgramFile(`${folder.path}/docs/release.md`, { cwd: "/" });
  assert.deepEqual([...absolute.sources.keys()].sort(), [...program.sources.keys()].sort());
});

Deno.test("MDX-62 loadProgramFile positions a refusal in the root or a component as the caller named the document", async () => {
  await using folder = await folderWith({
    "docs/release.md": "Release.\n\n<Note />\n",
    "docs/components/Note.md": "A note.\n\n<Fiel />\n",
    "docs/bad.md": "Intro.\n\n<If condition={true}>\n\nnever closed\n",
  });
  await assert.rejects(loadProgramFile("docs/release.md", { cwd: folder.path }), (error) => {
    assert.ok(error instanceof DocumentError);
    assert.equal(error.position.file, "docs/components/Note.md");
    assert.match(error.message, /^docs\/components\/Note\.md:3:1: /);
    return true;
  });
  await assert.rejects(loadProgramFile("docs/bad.md", { cwd: folder.path }), (error) => {
    assert.ok(error instanceof DocumentError);
    assert.match(error.message, /^docs\/bad\.md:3:1: /);
    return true;
  });
});

Deno.test("MDX-62 loadProgramFile refuses a missing root or a directory as a DocumentReadError naming the path as given", async () => {
  await using folder = await folderWith({ "docs/release.md": "Release.\n" });
  await assert.rejects(
    loadProgramFile("docs/gone.md", { cwd: folder.path }),
    (error) => {
      assert.ok(error instanceof DocumentReadError);
      assert.equal(error.problem, "missing");
      assert.equal(error.message, 'Cannot read document "docs/gone.md": no such file');
      return true;
    },
  );
  await assert.rejects(loadProgramFile("docs", { cwd: folder.path }), (error) => {
    assert.ok(error instanceof DocumentReadError);
    assert.equal(error.problem, "directory");
    assert.equal(error.message, 'Cannot read document "docs": it is a directory');
    return true;
  });
});

Deno.test("MDX-62 typedPositions rewrites a leading label position and leaves other messages alone", async () => {
  await using folder = await folderWith({
    "docs/release.md": "Release.\n\n<Note />\n",
    "docs/components/Note.md": "A note.\n",
  });
  const program = await loadProgramFile("docs/release.md", { cwd: folder.path });
  const display = typedPositions("docs/release.md", program);
  assert.equal(display("release.md:3:1: failed"), "docs/release.md:3:1: failed");
  assert.equal(
    display("components/Note.md:1:2: failed"),
    "docs/components/Note.md:1:2: failed",
  );
  assert.equal(display("release.md is fine"), "release.md is fine");
});
