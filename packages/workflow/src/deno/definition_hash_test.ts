import assert from "node:assert/strict";
import { loadProgramFile } from "@xmd/core/deno";
import { definitionHashOf } from "../remote/new-run-checks.ts";
import { definitionHash } from "../execution/verify-run.ts";

Deno.test("RM-11: the definition hash a Durable Object checks is the local host's", async () => {
  const dir = await Deno.makeTempDir({ prefix: "xmd-definition-" });
  try {
    await Deno.writeTextFile(`${dir}/main.md`, "# Main\n\n<Greet />\n");
    await Deno.writeTextFile(`${dir}/Greet.md`, "Hello.\n");
    const program = await loadProgramFile(`${dir}/main.md`);
    const sources = [...program.sources].map(([label, text]) => ({ label, text }));
    assert.equal(sources.length, 2);
    assert.equal(definitionHashOf(sources, null), definitionHash(program, undefined));
    assert.equal(definitionHashOf(sources, "Main"), definitionHash(program, "Main"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
