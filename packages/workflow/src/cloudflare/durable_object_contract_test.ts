import { Miniflare } from "./_test-miniflare.ts";
import { RUN_SERVER_CONTRACT } from "../remote/run_server_contract.ts";
import { RUN_STORE_CONTRACT } from "../store/run_store_contract.ts";
import type { ContractResult } from "../store/run_store_contract.ts";

const WORKER = new URL("./_test-contract-worker.ts", import.meta.url);
const PACKAGE = new URL("../../", import.meta.url);

/** Bundles the test Worker (the storage engine and zod) into one ES module with `deno bundle`. */
async function bundleWorker(dir: string): Promise<string> {
  const output = `${dir}/worker.js`;
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      "--platform=browser",
      "--format=esm",
      "-o",
      output,
      WORKER.pathname,
    ],
    cwd: PACKAGE.pathname,
    stdout: "null",
    stderr: "piped",
  }).output();
  if (code !== 0) throw new Error(`deno bundle failed:\n${new TextDecoder().decode(stderr)}`);
  return await Deno.readTextFile(output);
}

Deno.test("the storage engine's contract holds in a SQLite-backed Durable Object (workerd)", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "xmd-do-contract-" });
  try {
    const mf = new Miniflare({
      modules: true,
      script: await bundleWorker(dir),
      compatibilityDate: "2026-07-01",
      durableObjects: { CONTRACT: { className: "ContractObject", useSQLite: true } },
    });
    try {
      const ready = await mf.ready;
      const probe = await mf.dispatchFetch(new URL("?case=no-such-case", ready));
      await probe.body?.cancel();
      if (probe.status !== 404) throw new Error(`an unknown case answered ${probe.status}`);
      const begin = new URL(ready);
      begin.searchParams.set("case", "probe: BEGIN is refused");
      const refused = await (await mf.dispatchFetch(begin)).json();
      if (refused !== true) {
        throw new Error("the storage accepted BEGIN: this is no Durable Object");
      }
      for (const contractCase of [...RUN_STORE_CONTRACT, ...RUN_SERVER_CONTRACT]) {
        await t.step(contractCase.name, async () => {
          const url = new URL(ready);
          url.searchParams.set("case", contractCase.name);
          const response = await mf.dispatchFetch(url);
          if (!response.ok) {
            throw new Error(`the Worker answered ${response.status}: ${await response.text()}`);
          }
          const result = await response.json() as ContractResult;
          if (result.name !== contractCase.name) throw new Error(`ran ${result.name} instead`);
          if (!result.passed) throw new Error(result.failure?.stack ?? result.failure?.message);
        });
      }
    } finally {
      await mf.dispose();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
