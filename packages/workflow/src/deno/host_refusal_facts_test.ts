/**
 * Below the CLI a refusal states the fact (WF-55): the local host's messages
 * name no `xmd` command and no option to type, and each refusal the CLI
 * continues from carries its class, code and reason, so a library caller or
 * a remote host decides without reading the message.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { loadProgram } from "@xmd/core";
import {
  checkWorkflowSupport,
  RunConflictError,
  RunNotFoundError,
  type RunNotFoundReason,
  RunStateError,
  type RunStateReason,
} from "@xmd/workflow";
import type { ExecutionIo } from "@xmd/workflow";
import { LocalWorkflowHost } from "./local-workflow-host.ts";

const io: ExecutionIo = {
  stdout: () => {},
  stderr: () => {},
  onRun: () => {},
  signal: new AbortController().signal,
};

function program(text: string) {
  return loadProgram({ file: "doc.md", text }, () => Promise.resolve(undefined));
}

/** Asserts `error` is a bare fact: no command to run and no option to pass. */
function bareFact(error: unknown): error is Error {
  assert.ok(error instanceof Error);
  assert.doesNotMatch(error.message, /\bxmd (run|workflow)\b|--[a-z]/, error.message);
  return true;
}

function notFound(reason: RunNotFoundReason) {
  return (error: unknown) =>
    bareFact(error) && error instanceof RunNotFoundError && error.code === "run.not_found" &&
    error.reason === reason;
}

function state(reason: RunStateReason) {
  return (error: unknown) =>
    bareFact(error) && error instanceof RunStateError && error.code === "run.state" &&
    error.reason === reason;
}

Deno.test("WF-55: the host's refusals name no command; each carries the reason the CLI advises by", async () => {
  const dir = await Deno.makeTempDir({ prefix: "xmd-refusal-facts-" });
  try {
    const host = new LocalWorkflowHost(join(dir, "runs"));
    const asking = await program(
      '<Elicit as="ok" schema={{ type: "boolean" }}>Go on?</Elicit>\n\nDone.\n',
    );
    assert.equal(
      (await host.start({ id: "r", program: asking, props: {} }, io)).status,
      "suspended",
    );

    await assert.rejects(host.inspect("missing"), notFound("missing"));
    await assert.rejects(host.resume("missing", io), notFound("missing"));
    await assert.rejects(host.inspect("-bad"), notFound("invalid-id"));

    const other = await program("# Another\n");
    await assert.rejects(
      host.start({ id: "r", program: other, props: {} }, io),
      (error) =>
        bareFact(error) && error instanceof RunConflictError && error.code === "run.conflict",
    );

    const suspension = (await host.inspect("r")).pendingSuspension!.suspensionId;
    await host.answer("r", suspension, true, true);
    await assert.rejects(host.answer("r", suspension, true, true), state("answer-waiting"));

    await assert.rejects(host.diff("r", 1, 99), state("no-such-event"));
    await assert.rejects(host.export("r", 99, join(dir, "out")), state("no-such-event"));

    const python = await program("```python exec\nprint(1)\n```\n");
    assert.throws(() => checkWorkflowSupport(python), bareFact);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** The lines of the core and workflow sources (tests aside) that are code, not comments. */
async function codeLines(folder: URL): Promise<{ file: string; line: string }[]> {
  const lines: { file: string; line: string }[] = [];
  for await (const entry of Deno.readDir(folder)) {
    const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), folder);
    if (entry.isDirectory) lines.push(...await codeLines(url));
    else if (entry.name.endsWith(".ts") && !/_test\.ts$|^_test-/.test(entry.name)) {
      for (const line of (await Deno.readTextFile(url)).split("\n")) {
        if (!/^\s*(\*|\/\/|\/\*\*)/.test(line)) lines.push({ file: url.pathname, line });
      }
    }
  }
  return lines;
}

Deno.test("WF-55: no message of the core or workflow packages tells the user an xmd command to run", async () => {
  const packages = new URL("../../../", import.meta.url);
  const lines = [
    ...await codeLines(new URL("core/src/", packages)),
    ...await codeLines(new URL("workflow/src/", packages)),
  ];
  assert.ok(lines.length > 10_000, "the scan read the sources");
  // A command is `xmd workflow <verb>` or `xmd run` with what it runs; "an xmd run" is a noun.
  const command = /\bxmd workflow [a-z]+|\bxmd run (instead|<|[\w./-]+\.md)/;
  const advising = lines.filter(({ line }) => command.test(line.replace(/\s\/\/ .*$/, "")));
  assert.deepEqual(advising, []);
});
