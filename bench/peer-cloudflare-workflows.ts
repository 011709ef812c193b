/**
 * A benchmark peer for one durable step: Cloudflare Workflows `step.do`,
 * run by a real workerd under miniflare.
 *
 * The Worker ({@link WORKER_SCRIPT}) defines a `WorkflowEntrypoint` whose
 * `run` awaits `steps` sequential `step.do("s<i>", …)` calls, each returning
 * a 1,024-byte string, and a fetch handler that creates one instance and
 * answers once it is complete. One timed call is one such request, so what
 * is timed is the instance's creation, its `steps` durable steps and its
 * completion, plus one HTTP round trip from Deno to workerd.
 *
 * Waiting for completion: the fetch handler awaits
 * `env.WF.unsafeWaitForStatus(id, "complete")`, miniflare's test hook
 * (exposed by its local Workflow binding, absent in production) that the
 * instance's engine resolves when it sets the status, so no polling interval
 * is added. It then reads `instance.status()` (the public API) and answers
 * 500 unless the status is `complete` and the output is the byte count of
 * all step results.
 *
 * Durability under miniflare: each instance is its own SQLite-backed Durable
 * Object (miniflare's Workflows engine), stored under `workflowsPersist`
 * (`<dir>/workflows/miniflare-workflows-steps/<hash>.sqlite`, WAL mode).
 * `step.do` writes the step's state and result with `storage.put`; workerd
 * commits a turn's writes as one SQLite transaction and fsyncs the WAL
 * (`strace -f -c` counts 3 fsyncs per step, and about 13 per instance for
 * creating its database, journal and folder entry), and by design its
 * output gate holds the engine's reply to `step.do` until that commit, so
 * each `step.do` resolves only once its result is on the local disk. What
 * miniflare does not give is production's replication: one process, one
 * disk. (`workflowsPersist: false` would not mean memory either: miniflare
 * then keeps the same databases in its temporary folder.)
 *
 * Invariant: every timed workflow is checked (in the Worker) to have
 * completed with the full output, so an errored or short instance fails the
 * benchmark instead of being timed.
 *
 * @module
 */
// The same specifier as @xmd/workflow's import map (bench/ is no workspace member), so the frozen
// lock resolves it to the very miniflare the Durable Object contract test runs.
// deno-lint-ignore no-import-prefix
import { Miniflare } from "npm:miniflare@^4.20260730.0";
import { fixed, sample, summarize } from "./_stats.ts";
import type { StepPeerFixture } from "./_step-peer.ts";

/** Bytes of each step's result string. */
export const STEP_RESULT_BYTES = 1_024;

/**
 * The Worker: the `Steps` workflow and a fetch handler that runs one
 * instance of `?steps=<n>` steps to completion. Plain JavaScript (modules
 * format), so workerd runs it without bundling.
 */
export const WORKER_SCRIPT = `
import { WorkflowEntrypoint } from "cloudflare:workers";

export class Steps extends WorkflowEntrypoint {
  async run(event, step) {
    let bytes = 0;
    for (let i = 0; i < event.payload.steps; i++) {
      bytes += (await step.do("s" + i, async () => "x".repeat(${STEP_RESULT_BYTES}))).length;
    }
    return bytes;
  }
}

export default {
  async fetch(request, env) {
    const steps = Number(new URL(request.url).searchParams.get("steps"));
    const instance = await env.WF.create({ params: { steps } });
    await env.WF.unsafeWaitForStatus(instance.id, "complete");
    const { status, output, error } = await instance.status();
    const expected = steps * ${STEP_RESULT_BYTES};
    if (status !== "complete" || output !== expected) {
      return new Response(
        "instance " + instance.id + " is " + status + " with output " + JSON.stringify(output) +
          " (expected " + expected + ")" + (error ? ": " + JSON.stringify(error) : ""),
        { status: 500 },
      );
    }
    return new Response(null, { status: 204 });
  },
};
`;

/**
 * Starts workerd under miniflare with the `Steps` workflow persisted under
 * `dir/workflows` (a folder on the disk under test; each instance adds a
 * SQLite database there, a few MB with its WAL), for instances of `steps`
 * steps.
 */
export async function openCloudflareWorkflowsPeer(
  dir: string,
  steps = 50,
): Promise<StepPeerFixture> {
  const mf = new Miniflare({
    modules: true,
    script: WORKER_SCRIPT,
    compatibilityDate: "2026-07-01",
    workflows: { WF: { name: "steps", className: "Steps" } },
    workflowsPersist: `${dir}/workflows`,
  });
  const url = new URL(`?steps=${steps}`, await mf.ready);
  return {
    steps,
    name: "Cloudflare Workflows step.do (miniflare/workerd)",
    runWorkflow: async () => {
      const response = await mf.dispatchFetch(url);
      const text = await response.text();
      if (response.status !== 204) {
        throw new Error(
          `Cannot benchmark a workflow: the Worker answered ${response.status}: ${text}`,
        );
      }
    },
    [Symbol.asyncDispose]: () => mf.dispose(),
  };
}

if (import.meta.main) {
  const dir = await Deno.makeTempDir({ prefix: "xmd-bench-cf-workflows-" });
  try {
    await using peer = await openCloudflareWorkflowsPeer(dir);
    const summary = summarize(
      await sample(() => peer.runWorkflow(), {
        warmupCalls: 5,
        warmupMs: 0,
        minSamples: 10,
        budgetMs: 0,
        maxSamples: 10,
      }),
    );
    console.log(
      `${peer.name}, ${summary.n} workflows of ${peer.steps} steps: ` +
        `median ${fixed(summary.medianMs, 1)} ms per workflow, ` +
        `${fixed(summary.medianMs / peer.steps, 2)} ms per step`,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
