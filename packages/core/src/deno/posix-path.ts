/**
 * Host paths without `node:path`. Importing any of Deno's heavier Node
 * built-ins (`node:path`, `node:util`) first loads the Node compatibility
 * layer they share: about 6–8 ms of CPU of every `xmd workflow list` and
 * `status`, more than the reads themselves (`bench/profile-startup.md`, sixth
 * pass), and of every `xmd run` and `workflow start`. These are the few path
 * functions the dispatch, the workflow command, the local host, the host
 * file system and the program loader use.
 *
 * Invariant: each function returns what `node:path`'s POSIX function of the
 * same name returns for the same arguments (`posix_path_test.ts` compares
 * them), so replacing one by the other changes nothing but the load. xmd runs
 * on POSIX hosts (process groups, `bash`, directory syncs); a path is a
 * `/`-separated string.
 *
 * @module
 */

/** Whether `path` starts at the root (`node:path`'s `posix.isAbsolute`). */
export function isAbsolutePath(path: string): boolean {
  return path.startsWith("/");
}

/** Resolves `.`, `..` and repeated separators of `path`, keeping a trailing separator. */
function normalize(path: string): string {
  if (path === "") return ".";
  const absolute = path.startsWith("/");
  const trailing = path.endsWith("/");
  const names: string[] = [];
  for (const name of path.split("/")) {
    if (name === "" || name === ".") continue;
    if (name !== "..") names.push(name);
    else if (names.length > 0 && names[names.length - 1] !== "..") names.pop();
    else if (!absolute) names.push("..");
  }
  let normalized = names.join("/");
  if (normalized === "" && !absolute) normalized = ".";
  if (normalized !== "" && trailing) normalized += "/";
  return absolute ? `/${normalized}` : normalized;
}

/** `parts` joined with `/` and normalized (`node:path`'s `posix.join`). */
export function joinPath(...parts: string[]): string {
  const joined = parts.filter((part) => part !== "").join("/");
  return joined === "" ? "." : normalize(joined);
}

/**
 * The absolute path `parts` name, read from the right until one is absolute,
 * then from the current directory (`node:path`'s `posix.resolve`).
 */
export function resolvePath(...parts: string[]): string {
  let resolved = "";
  for (let index = parts.length - 1; index >= 0 && !resolved.startsWith("/"); index--) {
    if (parts[index] !== "") {
      resolved = resolved === "" ? parts[index] : `${parts[index]}/${resolved}`;
    }
  }
  if (!resolved.startsWith("/")) {
    resolved = resolved === "" ? Deno.cwd() : `${Deno.cwd()}/${resolved}`;
  }
  const normalized = normalize(resolved);
  return normalized.length > 1 && normalized.endsWith("/") ? normalized.slice(0, -1) : normalized;
}

/** The last name of `path` (`node:path`'s `posix.basename`, without a suffix). */
export function basenameOf(path: string): string {
  let end = path.length;
  while (end > 0 && path[end - 1] === "/") end--;
  return path.slice(path.lastIndexOf("/", end - 1) + 1, end);
}

/**
 * The folder of `path` (`node:path`'s `posix.dirname`): what precedes the
 * separator before its last name, which keeps a doubled separator before it
 * (`/a//b` → `/a/`) and a leading `//`.
 */
export function dirnameOf(path: string): string {
  if (path === "") return ".";
  let end = path.length;
  while (end > 1 && path[end - 1] === "/") end--;
  const slash = end > 0 ? path.lastIndexOf("/", end - 1) : -1;
  if (slash === -1) return ".";
  if (slash === 0) return "/";
  if (slash === 1 && path.startsWith("/")) return "//";
  return path.slice(0, slash);
}
