import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { Workspace } from "../workspace/workspace.ts";
import { NodeSqliteSeam } from "./node-sqlite-seam.ts";
import { WorkerShell } from "./worker-shell.ts";

function workspace(): Workspace {
  const seam = new NodeSqliteSeam(new DatabaseSync(":memory:"));
  seam.transaction(() => Workspace.initialize(seam));
  return new Workspace(seam);
}

function request(script: string, overrides: Partial<Parameters<WorkerShell["run"]>[0]> = {}) {
  const out = { stdout: "", stderr: "" };
  return {
    out,
    request: {
      lang: "sh",
      script,
      cwd: ".",
      timeoutMs: 30_000,
      onStdout: (chunk: string) => out.stdout += chunk,
      onStderr: (chunk: string) => out.stderr += chunk,
      signal: new AbortController().signal,
      ...overrides,
    },
  };
}

Deno.test("worker shell: runs a block against the Workspace", async () => {
  const ws = workspace();
  ws.writeFile("/in.txt", new TextEncoder().encode("b\na\n"));
  using shell = new WorkerShell(ws);
  const { request: req, out } = request(
    "mkdir -p out && sort in.txt > out/sorted.txt && ls out && cat out/sorted.txt && echo x > f",
  );
  const result = await shell.run(req);
  assert.equal(result.stderr, "");
  assert.equal(result.exitCode, 0);
  assert.equal(result.stdout, "sorted.txt\na\nb\n");
  assert.equal(out.stdout, "sorted.txt\na\nb\n");
  assert.equal(new TextDecoder().decode(ws.readFile("/out/sorted.txt")), "a\nb\n");
  assert.equal(new TextDecoder().decode(ws.readFile("/f")), "x\n");
});

Deno.test("worker shell: a CPU-bound script is stopped by its timeout and the next block runs", async () => {
  const ws = workspace();
  using shell = new WorkerShell(ws);
  const result = await shell.run(request("while true; do :; done", { timeoutMs: 1500 }).request);
  assert.equal(result.exitCode, 124);
  assert.equal(result.timedOut, true);
  const next = await shell.run(request("echo after").request);
  assert.equal(next.stdout, "after\n");
});
