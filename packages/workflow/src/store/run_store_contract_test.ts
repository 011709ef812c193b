import { DatabaseSync } from "node:sqlite";
import { NodeSqliteSeam } from "../deno/node-sqlite-seam.ts";
import { RUN_SERVER_CONTRACT } from "../remote/run_server_contract.ts";
import { RUN_STORE_CONTRACT, runContractCase } from "./run_store_contract.ts";

Deno.test("the storage engine's contract holds over node:sqlite (one database file per case)", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "xmd-contract-" });
  try {
    for (const [index, contractCase] of [...RUN_STORE_CONTRACT, ...RUN_SERVER_CONTRACT].entries()) {
      await t.step(contractCase.name, () => {
        using seam = new NodeSqliteSeam(new DatabaseSync(`${dir}/case-${index}.db`));
        const result = runContractCase(contractCase, seam);
        if (!result.passed) throw new Error(result.failure?.stack ?? result.failure?.message);
      });
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
