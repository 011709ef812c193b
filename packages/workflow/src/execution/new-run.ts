/**
 * The run a start creates, as both hosts record it: the request's program,
 * target and props with the identities the start computed from them.
 *
 * Invariant: every source of the program is retained in the program's order,
 * and exactly the root document's is marked as the root.
 *
 * @module
 */
import type { StartRequest } from "../contracts/workflow-host.ts";
import type { NewRun } from "../store/run-store.ts";

/** The run that starting `request` as run `id` creates. */
export function newRun(
  id: string,
  request: StartRequest,
  definitionHash: string,
  propsHash: string,
): NewRun {
  const document = request.program.root.file;
  return {
    id,
    document,
    target: request.target ?? null,
    definitionHash,
    props: request.props,
    propsHash,
    sources: [...request.program.sources].map(([label, text]) => ({
      label,
      text,
      root: label === document,
    })),
  };
}
