/**
 * The execution contract (`_execution-contract.ts`) over each host: every
 * case on fresh hosts, twice, with identical roots per event. The remote
 * runner (`RemoteWorkflowHost`, in-process) talks to the `WorkflowRun`
 * Durable Object in real workerd (miniflare), one workerd for every case,
 * each fresh host under a namespace of its own (`?ns=`); with
 * `XMD_TEST_REMOTE_BACKEND=loopback`, to the run server over node:sqlite
 * behind a loopback WebSocket (`_test-remote-server.ts`), one per host.
 */
import { RemoteWorkerd } from "../cloudflare/_test-remote-workerd.ts";
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

for (const contractCase of EXECUTION_CONTRACT) {
  Deno.test(`WF-62 execution contract, local host: ${contractCase.name}`, async () => {
    await runExecutionCase(localHost, contractCase);
  });
}

if (Deno.env.get("XMD_TEST_REMOTE_BACKEND") === "loopback") {
  const loopbackHost: HostFactory = async () => {
    const server = await TestRemoteServer.start();
    return {
      host: new RemoteWorkflowHost({ url: (id) => server.urlOf(id) }),
      [Symbol.asyncDispose]: () => server[Symbol.asyncDispose](),
    };
  };
  for (const contractCase of EXECUTION_CONTRACT) {
    Deno.test(`WF-62 execution contract, remote host (loopback): ${contractCase.name}`, async () => {
      await runExecutionCase(loopbackHost, contractCase);
    });
  }
} else {
  Deno.test("WF-62 execution contract, remote host through the WorkflowRun Durable Object in workerd", async (t) => {
    await using workerd = await RemoteWorkerd.start();
    let hosts = 0;
    const workerdHost: HostFactory = () => {
      // The same run ids as every other host, in Durable Objects of its own: an empty host.
      const ns = `host-${++hosts}`;
      const url = (id: string) => `${workerd.base}?ns=${ns}&run=${encodeURIComponent(id)}`;
      return Promise.resolve({
        host: new RemoteWorkflowHost({ url }),
        [Symbol.asyncDispose]: () => Promise.resolve(),
      });
    };
    for (const contractCase of EXECUTION_CONTRACT) {
      await t.step(contractCase.name, () => runExecutionCase(workerdHost, contractCase));
    }
  });
}
