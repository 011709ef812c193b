/**
 * A test Worker: each request runs one case of the storage engine's contract
 * (the run store's and the run server's) inside its own SQLite-backed Durable
 * Object (a fresh, empty database named by the case), over
 * `DurableObjectSeam`, and answers the case's result as JSON. Bundled and
 * served by real workerd (miniflare) in `durable_object_contract_test.ts`.
 *
 * @module
 */
import { RUN_SERVER_CONTRACT } from "../remote/run_server_contract.ts";
import { RUN_STORE_CONTRACT, runContractCase } from "../store/run_store_contract.ts";
import { DurableObjectSeam, type DurableObjectSqlStorage } from "./durable-object-seam.ts";

interface DurableObjectNamespace {
  idFromName(name: string): unknown;
  get(id: unknown): { fetch(request: Request): Promise<Response> };
}

/** The Durable Object that runs one contract case against its own storage. */
export class ContractObject {
  readonly #storage: DurableObjectSqlStorage;

  constructor(ctx: { storage: DurableObjectSqlStorage }) {
    this.#storage = ctx.storage;
  }

  fetch(request: Request): Response {
    const name = new URL(request.url).searchParams.get("case");
    if (name === "probe: BEGIN is refused") return Response.json(this.#beginRefused());
    const contractCase = [...RUN_STORE_CONTRACT, ...RUN_SERVER_CONTRACT].find((candidate) =>
      candidate.name === name
    );
    if (!contractCase) return new Response("unknown case", { status: 404 });
    return Response.json(runContractCase(contractCase, new DurableObjectSeam(this.#storage)));
  }

  /** Whether this storage refuses a raw `BEGIN`, as a Durable Object's does. */
  #beginRefused(): boolean {
    try {
      this.#storage.sql.exec("BEGIN").toArray();
      return false;
    } catch {
      return true;
    }
  }
}

export default {
  fetch(request: Request, env: { CONTRACT: DurableObjectNamespace }): Promise<Response> {
    const name = new URL(request.url).searchParams.get("case") ?? "";
    return env.CONTRACT.get(env.CONTRACT.idFromName(name)).fetch(request);
  },
};
