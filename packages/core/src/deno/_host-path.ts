/**
 * Joins the engine's logical paths onto a provider's root directory.
 *
 * Invariant: the result is always inside the root. The engine already
 * normalizes paths, so a path that is absolute or climbs with `..` is a bug
 * upstream; it is refused here too because these providers touch the real
 * machine.
 *
 * @module
 */
import { joinPath as join } from "./posix-path.ts";
import { FileSystemError } from "../engine/file-system-error.ts";

/**
 * Returns `root` joined with the normalized POSIX relative `path`, or throws
 * an `EINVAL` {@linkcode FileSystemError} naming `action` for a path that
 * would leave the root.
 */
export function resolveHostPath(root: string, path: string, action: string): string {
  if (path.startsWith("/") || path.split("/").includes("..")) {
    throw new FileSystemError(
      "EINVAL",
      path,
      `Cannot ${action} "${path}": the path leaves the root directory (EINVAL)`,
    );
  }
  return join(root, path);
}
