/**
 * The file a remote runner's working copy lives in: a run database with the
 * local host's schema and code (`openRunDatabase`), written without waiting
 * for the disk (`synchronous = OFF`).
 *
 * Invariant: the copy's durability is the Durable Object's. A change commits
 * on the copy only after the Durable Object acknowledged it, and a copy is
 * never read again once its runner stops (the next acquisition builds a new
 * one from what the Durable Object committed), so a local fsync would
 * protect nothing; it would only add a disk wait to every acquired reply
 * and every remote commit.
 *
 * @module
 */
import type { SqlSeam } from "../sql/sql-seam.ts";
import { openRunDatabase } from "./run-database.ts";

/** Creates the working copy's run database at `path` (a new file in a temporary folder). */
export async function openWorkingCopy(
  path: string,
  where: string,
): Promise<SqlSeam & Disposable> {
  const opened = await openRunDatabase(path, where, { create: true });
  const seam = opened!.seam;
  seam.exec("PRAGMA synchronous = OFF");
  return seam;
}
