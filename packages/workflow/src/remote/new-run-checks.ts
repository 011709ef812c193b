/**
 * What a remote `create` is checked for before the run exists: it is the run
 * this Durable Object was admitted for, its sources have one root and
 * distinct labels, its definition and props hash to what it claims, and
 * every value fits one row. The Durable Object runs no document, so these
 * identities are all it can check of a definition.
 *
 * @module
 */
import { canonicalJson, type JsonObject, sha256Hex } from "@xmd/core/protocol";
import type { NewRun, RetainedSource } from "../store/run-store.ts";
import { RemoteProtocolError } from "./remote-protocol-error.ts";
import { checkRow } from "./row-limit.ts";

/**
 * The definition identity of retained sources and a target: SHA-256 over
 * the canonical JSON of the sources' labels and hashes (sorted by label) and
 * the target. The local host computes the same from the program it loads.
 */
export function definitionHashOf(
  sources: readonly Pick<RetainedSource, "label" | "text">[],
  target: string | null,
): string {
  const hashed = sources.map(({ label, text }) => ({ label, sha256: sha256Hex(text) }))
    .sort((a, b) => a.label < b.label ? -1 : a.label > b.label ? 1 : 0);
  return sha256Hex(canonicalJson({ sources: hashed, target }));
}

/** Refuses a new run that is not `runId`'s or does not hold together. */
export function checkNewRun(run: NewRun, runId: string): void {
  if (run.id !== runId) {
    throw new RemoteProtocolError("run.admission", "Cannot create the run: it has another run id");
  }
  const labels = new Set(run.sources.map((source) => source.label));
  if (labels.size !== run.sources.length || run.sources.filter((s) => s.root).length !== 1) {
    throw new RemoteProtocolError(
      "protocol.malformed",
      "Cannot create the run: its sources need distinct labels and exactly one root",
    );
  }
  run.sources.forEach((source, i) => checkRow(source.text, `source ${i}`));
  const props = canonicalJson(run.props as JsonObject);
  checkRow(props, "props");
  if (definitionHashOf(run.sources, run.target) !== run.definitionHash) {
    throw new RemoteProtocolError(
      "run.conflict",
      "Cannot create the run: its sources and target do not hash to its definition hash",
    );
  }
  if (sha256Hex(props) !== run.propsHash) {
    throw new RemoteProtocolError(
      "run.conflict",
      "Cannot create the run: its props do not hash to its props hash",
    );
  }
}
