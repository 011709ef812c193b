/**
 * The suite's temporary folders go away with their test module, even when a
 * test fails, so running the tests leaves nothing in the temporary folder.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { testFolder } from "./_test-temp-folder.ts";

const HELPER = new URL("./_test-temp-folder.ts", import.meta.url).href;

Deno.test("a test module's temporary folders are removed when it ends, also after a failure", async () => {
  const outside = await testFolder("xmd-temp-check-");
  const tmp = join(outside, "tmp");
  await Deno.mkdir(tmp);
  const module = join(outside, "sample_test.ts");
  await Deno.writeTextFile(
    module,
    `import { testFolder, testFolderSync } from ${JSON.stringify(HELPER)};\n` +
      `Deno.test("keeps a file", async () => { await Deno.writeTextFile((await testFolder("a-")) + "/f", "x"); });\n` +
      `Deno.test("fails", () => { Deno.mkdirSync(testFolderSync("b-") + "/d"); throw new Error("on purpose"); });\n`,
  );
  const run = await new Deno.Command(Deno.execPath(), {
    args: ["test", "--no-lock", "-A", module],
    env: { TMPDIR: tmp, NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const out = new TextDecoder().decode(run.stdout);
  assert.equal(run.code, 1, out);
  assert.match(out, /1 passed \| 1 failed/);
  assert.deepEqual([...Deno.readDirSync(tmp)], []);
});
