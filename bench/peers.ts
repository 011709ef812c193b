/**
 * Peer durable-execution engines, measured in the same run as xmd on the
 * same shape of work: one new workflow of `STEPS` sequential durable steps,
 * each producing 1,024 bytes, timed from its start until its result is back.
 * xmd runs it as `LocalWorkflowHost.start` on a document of `<File>` writes
 * (`workflow-steps.ts`); the peers as Restate `ctx.run` actions on a local
 * `restate-server` (`peer-restate.ts`) and Cloudflare Workflows `step.do`
 * calls in workerd under miniflare (`peer-cloudflare-workflows.ts`). Each
 * row's ratio is its median over xmd's. The same runs again on workflows of
 * `LONG_STEPS` steps, so the per-step cost shows apart from each engine's
 * cost of starting a workflow.
 *
 * Invariant: all of them are sampled interleaved, in rotating blocks, so
 * they see the same machine and disk conditions; a peer that cannot start
 * fails the benchmark (nothing is reported for an engine that did not run).
 *
 * @module
 */
import {
  fixed,
  type InterleavedBudget,
  sampleInterleaved,
  summarize,
  type Summary,
} from "./_stats.ts";
import { openCloudflareWorkflowsPeer } from "./peer-cloudflare-workflows.ts";
import { openRestatePeer } from "./peer-restate.ts";
import { openXmdWorkflowSteps } from "./workflow-steps.ts";

/** Durable steps in one workflow. */
export const STEPS = 50;
/** Steps of the long workflow, whose per-step cost shows apart from start-up. */
export const LONG_STEPS = 500;
/** The 50-step workflow: at least this many times faster than the fastest peer (issue 12, target 2). */
export const TARGET_PEER_SPEEDUP = 2.5;

const BUDGET: InterleavedBudget = {
  warmupCalls: 3,
  blockSize: 3,
  minSamples: 15,
  budgetMs: 30_000,
  maxSamples: 60,
};
/** The long workflow takes about ten times as long: fewer samples. */
const LONG_BUDGET: InterleavedBudget = {
  warmupCalls: 1,
  blockSize: 1,
  minSamples: 6,
  budgetMs: 30_000,
  maxSamples: 15,
};

/** One engine's figures. */
export interface StepPeerRow {
  /** What ran. */
  name: string;
  /** Whole workflows, in ms. */
  summary: Summary;
  /** Median per step (the workflow's median over its steps), in ms. */
  perStepMs: number;
  /** Median over xmd's median. */
  overXmd: number;
}

/**
 * Runs every engine on workflows of `steps` steps (`STEPS` or `LONG_STEPS`)
 * in folders under `dir`; xmd's row comes first.
 */
export async function runStepPeers(dir: string, steps: number = STEPS): Promise<StepPeerRow[]> {
  await using xmd = await openXmdWorkflowSteps(`${dir}/xmd`, steps);
  await Deno.mkdir(`${dir}/restate`);
  await using restate = await openRestatePeer(`${dir}/restate`, steps);
  await Deno.mkdir(`${dir}/cloudflare`);
  await using cloudflare = await openCloudflareWorkflowsPeer(`${dir}/cloudflare`, steps);
  const engines = [xmd, restate, cloudflare];
  const samples = await sampleInterleaved(
    engines.map((engine) => engine.runWorkflow),
    steps === STEPS ? BUDGET : LONG_BUDGET,
  );
  const summaries = samples.map(summarize);
  return engines.map((engine, index) => {
    const summary = summaries[index];
    console.error(
      `  ${engine.name}: median ${fixed(summary.medianMs, 1)} ms per workflow, n=${summary.n}`,
    );
    return {
      name: engine.name,
      summary,
      perStepMs: summary.medianMs / engine.steps,
      overXmd: summary.medianMs / summaries[0].medianMs,
    };
  });
}
