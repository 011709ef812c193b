/**
 * Keeps `<File>` and `<Glob>` under `xmd run` inside the working directory
 * through symbolic links too: logical paths are checked lexically first
 * (`_host-path.ts`), and here the path the host would really touch, every
 * link on the way followed (a dangling one to where it points), must still be
 * inside the root's real path. A link that leads out is `EACCES`, as a
 * Workspace, which holds no host path, could never reach outside either.
 *
 * Invariant: the check only reads (`realPath`, `lstat`, `readLink`); an error
 * other than a missing path is left for the operation itself to report, so
 * the user sees the same refusal as without links. The check and the
 * operation are separate calls: a link swapped in between by another process
 * is not caught (no `openat` in Deno).
 *
 * The calls are synchronous, as the host file system's (see
 * `host-file-system.ts`).
 *
 * @module
 */
import {
  basenameOf as basename,
  dirnameOf as dirname,
  isAbsolutePath as isAbsolute,
  joinPath as join,
} from "./posix-path.ts";
import { fileSystemRefusal, type MissingKind } from "../engine/file-system-refusal.ts";

const SEPARATOR = "/";

const MAX_LINKS = 40;

/**
 * Refuses with `EACCES` when `hostPath` (inside `root` lexically) leads out of
 * `root` through a symbolic link; `path` is the logical path the refusal names.
 */
export function assertContained(
  root: string,
  hostPath: string,
  action: string,
  path: string,
  missing: MissingKind = "file",
): void {
  if (staysInside(root, hostPath)) return;
  throw fileSystemRefusal("EACCES", action, path, missing, {
    why: "a symbolic link on the way leads out of the working directory",
  });
}

/** Whether `hostPath`, every link followed, is inside `root` (or would be refused anyway). */
export function staysInside(root: string, hostPath: string): boolean {
  const realRoot = Deno.realPathSync(root);
  const real = whereItLeads(hostPath, 0);
  if (real === undefined || real === realRoot) return true;
  return real.startsWith(realRoot.endsWith(SEPARATOR) ? realRoot : realRoot + SEPARATOR);
}

/**
 * The real path `hostPath` names once every link is followed, for a path
 * that may not exist yet (its missing names are kept as they are), or
 * `undefined` when the host would refuse it anyway (a file on the way, a
 * link loop, permission).
 */
function whereItLeads(hostPath: string, links: number): string | undefined {
  try {
    return Deno.realPathSync(hostPath);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) return undefined;
  }
  let info: Deno.FileInfo;
  try {
    info = Deno.lstatSync(hostPath);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) return undefined;
    // Missing: it would be created in its parent, wherever that leads.
    const parent = dirname(hostPath);
    if (parent === hostPath) return undefined;
    const where = whereItLeads(parent, links);
    return where === undefined ? undefined : join(where, basename(hostPath));
  }
  if (!info.isSymlink || links >= MAX_LINKS) return undefined;
  // A dangling link: writing through it creates its target.
  const target = Deno.readLinkSync(hostPath);
  const from = whereItLeads(dirname(hostPath), links);
  if (from === undefined) return undefined;
  return whereItLeads(
    isAbsolute(target) ? target : `${from}${SEPARATOR}${target}`,
    links + 1,
  );
}
