/**
 * The execution contract (`_execution-contract.ts`) over the local host:
 * every case on a fresh runs folder, twice, with identical roots per event.
 */
import { LocalWorkflowHost } from "./local-workflow-host.ts";
import { EXECUTION_CONTRACT, type HostFactory, runExecutionCase } from "./_execution-contract.ts";

const localHost: HostFactory = async () => {
  const runs = await Deno.makeTempDir({ prefix: "xmd-contract-runs-" });
  return {
    host: new LocalWorkflowHost(runs),
    [Symbol.asyncDispose]: () => Deno.remove(runs, { recursive: true }),
  };
};

for (const contractCase of EXECUTION_CONTRACT) {
  Deno.test(`WF-62 execution contract, local host: ${contractCase.name}`, async () => {
    await runExecutionCase(localHost, contractCase);
  });
}
