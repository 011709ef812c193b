/**
 * xmd's side of the peer comparison: one whole workflow of sequential durable
 * steps, as a user runs it. `LocalWorkflowHost.start` (in this process, as
 * `xmd workflow start` calls it) creates a new run database (WAL,
 * `synchronous=FULL`) and runs a document of `steps` `<File>` writes of
 * 1,024 bytes each: every step is one Workspace effect committed with its
 * journal event and its new root before the next begins; the call returns
 * when the run is `completed`. The peers run the same shape: a new workflow
 * instance of `steps` steps, each returning 1,024 bytes.
 *
 * @module
 */
import { type JsonObject, loadProgram } from "@xmd/core";
import { LocalWorkflowHost } from "@xmd/workflow/deno";
import type { StepPeerFixture } from "./_step-peer.ts";

/** Bytes each step writes. */
export const STEP_BYTES = 1_024;

/**
 * The document: `steps` `<File>` writes of `STEP_BYTES` bytes, each text
 * starting with its step number, so no step's content (and chunk) is one an
 * earlier step stored, as no peer's step result is an earlier one's.
 */
export function stepsDocument(steps: number): string {
  const text = "the quick brown fox jumps over the lazy dog ".repeat(24);
  return Array.from(
    { length: steps },
    (_, i) =>
      `<File path="s/${i}.txt">${
        (String(i).padStart(8, "0") + text).slice(0, STEP_BYTES)
      }</File>\n`,
  ).join("\n");
}

/** Runs live in `dir` (a folder on the disk under test). */
export async function openXmdWorkflowSteps(dir: string, steps = 50): Promise<StepPeerFixture> {
  const program = await loadProgram(
    { file: "steps.md", text: stepsDocument(steps) },
    () => Promise.resolve(undefined),
  );
  const host = new LocalWorkflowHost(dir);
  const props: JsonObject = {};
  const io = {
    stdout: () => {},
    stderr: () => {},
    onRun: () => {},
    signal: new AbortController().signal,
  };
  return {
    name: `xmd workflow start: a new run of ${steps} <File> steps (local host, FULL)`,
    steps,
    runWorkflow: async () => {
      const report = await host.start({ program, props }, io);
      if (report.status !== "completed") {
        throw new Error(`Cannot benchmark xmd: the run ended ${report.status}`);
      }
    },
    [Symbol.asyncDispose]: () => Promise.resolve(),
  };
}
