/**
 * Logical paths: POSIX, relative to the provider's root, normalized. `..`
 * never climbs above the root and absolute paths are refused, so the same
 * document means the same files on the host and in a Workspace.
 *
 * @module
 */

/** Joins `path` onto the lexical directory `dir`; `undefined` when it would escape the root or is absolute. */
export function joinLogical(dir: string, path: string): string | undefined {
  if (path.startsWith("/") || path.includes("\0")) return undefined;
  const segments: string[] = [];
  for (const segment of `${dir}/${path}`.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      if (segments.length === 0) return undefined;
      segments.pop();
    } else {
      segments.push(segment);
    }
  }
  return segments.length ? segments.join("/") : ".";
}
