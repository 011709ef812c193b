/**
 * The local runs folder as the host finds it: created on first use, and
 * refused with {@linkcode RunsFolderError} when it cannot hold runs (a file,
 * a folder under a file, `/proc`, a read-only or forbidden place).
 *
 * Invariant: a refusal names the folder and the host's reason and code; it is
 * raised before anything is written in the folder, and creates nothing.
 *
 * @module
 */
import { RunsFolderError } from "../contracts/workflow-errors.ts";
import { hostProblem } from "./host-error.ts";

/**
 * Creates `folder` (and its parents) if it is missing; refuses one that cannot be. The call
 * is synchronous, as are SQLite's own: an asynchronous one costs about ten times its
 * microseconds in the runtime's thread pool, on every start.
 */
export async function createRunsFolder(folder: string): Promise<void> {
  try {
    Deno.mkdirSync(folder, { recursive: true });
  } catch (error) {
    throw await runsFolderRefusal(folder, error, "cannot create it");
  }
}

/**
 * The refusal for host error `error`, met while `doing` something with
 * `folder` or a file in it; any other error is returned as it is.
 */
export async function runsFolderRefusal(
  folder: string,
  error: unknown,
  doing: string,
): Promise<unknown> {
  const problem = hostProblem(error);
  if (problem === undefined) return error;
  const stat = await Deno.stat(folder).catch(() => undefined);
  return new RunsFolderError(
    stat !== undefined && !stat.isDirectory
      ? `Cannot use the runs folder "${folder}": it is not a directory`
      : `Cannot use the runs folder "${folder}": ${doing}: ${problem.reason} (${problem.code})`,
    { cause: error },
  );
}
