/**
 * A local start hashes its sources natively (WF-101): the definition hash and
 * each retained source's hash are the ones the runtime-neutral SHA-256 gives,
 * so a resume verifies the run and continues it. A real run database in a
 * temp dir, read back over SQLite.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { loadProgram, sha256Hex } from "@xmd/core";
import { definitionHash } from "../execution/verify-run.ts";
import { LocalWorkflowHost } from "./local-workflow-host.ts";

const ROOT = [
  "# Doc",
  "",
  "A line past ASCII: naïve — ✓ 𝄞.",
  "",
  '<Greeting who="you" />',
  "",
  '<Elicit as="go" schema={{ type: "boolean" }}>Go on?</Elicit>',
  "",
  "done {go}",
  "",
].join("\n");
const COMPONENT = "---\nprops:\n  who:\n    type: string\n---\n\nHello, {props.who}!\n";

Deno.test("WF-101: a start's definition hash and source hashes are the runtime-neutral SHA-256's, and the run resumes", async () => {
  const dir = await Deno.makeTempDir({ prefix: "xmd-start-hashes-" });
  try {
    const program = await loadProgram(
      { file: "doc.md", text: ROOT },
      (label) => Promise.resolve(label === "Greeting.md" ? COMPONENT : undefined),
    );
    const host = new LocalWorkflowHost(join(dir, "runs"));
    let out = "";
    const io = {
      stdout: (text: string) => out += text,
      stderr: () => {},
      onRun: () => {},
      signal: new AbortController().signal,
    };
    const started = await host.start({ id: "hashes", program, props: {} }, io);
    assert.equal(started.status, "suspended");
    {
      using db = new DatabaseSync(host.pathOf("hashes"), { readOnly: true });
      const sources = db.prepare("SELECT label, sha256, text FROM source ORDER BY label").all();
      assert.deepEqual(
        sources.map(({ label, sha256 }) => [label, sha256]),
        [["Greeting.md", sha256Hex(COMPONENT)], ["doc.md", sha256Hex(ROOT)]],
      );
      const [run] = db.prepare("SELECT definition_hash FROM run").all();
      assert.equal(run.definition_hash, definitionHash(program, undefined));
    }
    await host.answer("hashes", started.pendingSuspension!.suspensionId, true, true);
    out = "";
    // The resume verifies the retained definition against its hashes (WF-45) before it runs.
    const resumed = await host.resume("hashes", io);
    assert.equal(resumed.status, "completed");
    assert.match(out, /done true/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
