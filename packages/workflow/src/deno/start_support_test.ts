/**
 * The host's own `start` refuses what a workflow run cannot execute, so a
 * library caller who skips `checkWorkflowSupport` meets the CLI's refusal
 * (WF-22).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DocumentError, loadProgram } from "@xmd/core";
import { LocalWorkflowHost } from "./local-workflow-host.ts";

Deno.test("WF-22: the host's start refuses a python block itself, before anything exists", async () => {
  const dir = await Deno.makeTempDir({ prefix: "xmd-start-support-" });
  try {
    const program = await loadProgram(
      { file: "doc.md", text: "# Doc\n\n```python exec\nprint(1)\n```\n" },
      () => Promise.resolve(undefined),
    );
    const runs = join(dir, "runs");
    let ran = false;
    await assert.rejects(
      new LocalWorkflowHost(runs).start({ id: "py", program, props: {} }, {
        stdout: () => {},
        stderr: () => {},
        onRun: () => ran = true,
        signal: new AbortController().signal,
      }),
      (error) =>
        error instanceof DocumentError &&
        /doc\.md:3:1: A "python" exec block cannot run in a workflow run/.test(error.message),
    );
    assert.equal(ran, false);
    await assert.rejects(Deno.stat(runs), Deno.errors.NotFound);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
