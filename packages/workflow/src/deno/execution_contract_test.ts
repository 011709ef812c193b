/**
 * The execution contract (`_execution-contract.ts`) over each host: every
 * case on fresh hosts, twice, with identical roots per event. The remote
 * runner (`RemoteWorkflowHost`, in-process) talks to the loopback run server
 * (`_test-remote-server.ts`), one per host.
 */
import { LocalWorkflowHost } from "./local-workflow-host.ts";
import { RemoteWorkflowHost } from "./remote-workflow-host.ts";
import { TestRemoteServer } from "./_test-remote-server.ts";
import { EXECUTION_CONTRACT, type HostFactory, runExecutionCase } from "./_execution-contract.ts";

const localHost: HostFactory = async () => {
  const runs = await Deno.makeTempDir({ prefix: "xmd-contract-runs-" });
  return {
    host: new LocalWorkflowHost(runs),
    [Symbol.asyncDispose]: () => Deno.remove(runs, { recursive: true }),
  };
};

const remoteHost: HostFactory = async () => {
  const server = await TestRemoteServer.start();
  return {
    host: new RemoteWorkflowHost({ url: (id) => server.urlOf(id) }),
    [Symbol.asyncDispose]: () => server[Symbol.asyncDispose](),
  };
};

for (const [label, factory] of [["local", localHost], ["remote", remoteHost]] as const) {
  for (const contractCase of EXECUTION_CONTRACT) {
    Deno.test(`WF-62 execution contract, ${label} host: ${contractCase.name}`, async () => {
      await runExecutionCase(factory, contractCase);
    });
  }
}
