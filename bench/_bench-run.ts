/**
 * A run database for benchmarks: opened as the local provider opens it (WAL,
 * `synchronous=FULL`) with one running run created, so an effect can be
 * appended at once.
 *
 * @module
 */
import { sha256Hex } from "@xmd/core";
import { RunStore, type SqlSeam } from "@xmd/workflow";
import { openRunDatabase } from "@xmd/workflow/deno/internal";

/** An open bench run. */
export interface BenchRun {
  /** The connection (dispose it when done). */
  seam: SqlSeam & Disposable;
  /** The run's store. */
  store: RunStore;
  /** The running execution. */
  execution: number;
}

/** Creates a run database at `path` holding one running run. */
export async function openBenchRun(path: string): Promise<BenchRun> {
  const opened = await openRunDatabase(path, "the bench run", { create: true });
  if (!opened) throw new Error(`Cannot open the bench run database ${path}`);
  const seam = opened.seam;
  const store = new RunStore(seam, "the bench run");
  const execution = store.create({
    id: "bench",
    document: "bench.md",
    target: null,
    definitionHash: sha256Hex("definition"),
    props: {},
    propsHash: sha256Hex("{}"),
    sources: [{ label: "bench.md", text: "Bench.\n", root: true }],
  });
  return { seam, store, execution };
}
