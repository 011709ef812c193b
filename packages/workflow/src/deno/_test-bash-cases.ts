/**
 * Test support: runs scripts in Worker Shell and compares each with what GNU
 * bash wrote for it (its stdout and stderr together, in order) and its status.
 *
 * @module
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { Workspace } from "../workspace/workspace.ts";
import { NodeSqliteSeam } from "./node-sqlite-seam.ts";
import { WorkerShell } from "./worker-shell.ts";

/** A script, what GNU bash 5.2 writes for it (both streams together) and its status. */
export type BashCase = [script: string, output: string, status: number];

function emptyWorkspace(): Workspace {
  const seam = new NodeSqliteSeam(new DatabaseSync(":memory:"));
  seam.transaction(() => Workspace.initialize(seam));
  return new Workspace(seam);
}

async function seen(shell: WorkerShell, script: string): Promise<[string, number]> {
  let output = "";
  const result = await shell.run({
    lang: "bash",
    script,
    cwd: ".",
    timeoutMs: 30_000,
    onStdout: (chunk) => output += chunk,
    onStderr: (chunk) => output += chunk,
    signal: new AbortController().signal,
  });
  return [output, result.exitCode];
}

/**
 * Asserts each case, in one Workspace, or each in an empty one of its own
 * when `fresh` (scripts that make files).
 */
export async function assertBashCases(
  cases: readonly BashCase[],
  { fresh = false }: { fresh?: boolean } = {},
): Promise<void> {
  let shell: WorkerShell | undefined;
  try {
    for (const [script, output, status] of cases) {
      if (fresh || shell === undefined) {
        shell?.[Symbol.dispose]();
        shell = new WorkerShell(emptyWorkspace());
      }
      assert.deepEqual(await seen(shell, script), [output, status], script);
    }
  } finally {
    shell?.[Symbol.dispose]();
  }
}
