import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { Workspace } from "../workspace/workspace.ts";
import { NodeSqliteSeam } from "./node-sqlite-seam.ts";
import { WorkerShell } from "./worker-shell.ts";
import { interpreterEnvironment } from "./worker-shell-process.ts";

Deno.test("WS-136: plain strings compare as ICU compares them in the interpreter's environment", async () => {
  // Started as the interpreter is: no permission, no configuration, its environment only.
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--no-config",
      "--no-prompt",
      new URL("./_collation-probe.ts", import.meta.url).href,
    ],
    clearEnv: true,
    env: interpreterEnvironment(),
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  assert.equal(code, 0, decoder.decode(stderr));
  const { checked, mismatches } = JSON.parse(decoder.decode(stdout));
  assert.deepEqual(mismatches, []);
  assert.ok(checked > 1_000_000, `only ${checked} pairs compared`);
});

Deno.test("WS-136: a block's SHELLOPTS, sort and ls order names as before", async () => {
  const seam = new NodeSqliteSeam(new DatabaseSync(":memory:"));
  seam.transaction(() => Workspace.initialize(seam));
  const ws = new Workspace(seam);
  const names = ["b-2", "a10", "a-1", "a1", "B", "_x", "a.b", "z", "9"];
  using shell = new WorkerShell(ws);
  const { exitCode, stdout, stderr } = await shell.run({
    lang: "sh",
    script: [
      'echo "$SHELLOPTS"',
      "set -o pipefail -o nounset",
      'echo "$SHELLOPTS"',
      `printf '%s\\n' ${names.join(" ")} | sort`,
      `mkdir d && cd d && touch ${names.join(" ")} && ls`,
    ].join("\n"),
    cwd: ".",
    timeoutMs: 30_000,
    onStdout: () => {},
    onStderr: () => {},
    signal: new AbortController().signal,
  });
  assert.equal(stderr, "");
  assert.equal(exitCode, 0);
  // sort orders by localeCompare (ICU's en-US collation, the plain names compared without it)
  const sorted = [...names].sort(new Intl.Collator("en-US").compare);
  assert.equal(
    stdout,
    [
      "braceexpand:hashall:interactive-comments",
      "braceexpand:hashall:interactive-comments:nounset:pipefail",
      ...sorted,
      ...[...names].sort(), // ls orders by code unit
      "",
    ].join("\n"),
  );
});
