/**
 * The filesystem operations Worker Shell's interpreter may ask its host for,
 * and which of them may change the Workspace. Imported by the interpreter,
 * which runs with no configuration file: this module imports nothing.
 *
 * @module
 */

/** The operations that may change the Workspace. */
const CHANGING = [
  "writeFile",
  "appendFile",
  "mkdir",
  "rm",
  "cp",
  "mv",
  "chmod",
  "symlink",
  "link",
] as const;

/** Filesystem operations the interpreter may ask for: those that only read, then the others. */
export const FS_OPS = [
  "readFile",
  "exists",
  "stat",
  "lstat",
  "readdir",
  "readdirTypes",
  "readlink",
  "realpath",
  ...CHANGING,
] as const;

/** A filesystem operation name. */
export type FsOp = typeof FS_OPS[number];

/** The operations that may change the Workspace; every other one only reads it. */
export const MUTATING_FS_OPS: ReadonlySet<FsOp> = new Set<FsOp>(CHANGING);

/** The default `PATH`'s folders, in the order of {@linkcode PathDirs}. */
export const PATH_DIRS = ["/usr/bin", "/bin"] as const;

/** What the host says of one of the default `PATH`'s folders. */
export interface PathDir {
  /** It exists (links followed). */
  exists: boolean;
  /**
   * When it is no directory (missing, a file, a dangling link): why no path
   * under it resolves, the same for every name under it. A path's refusal is
   * `Cannot resolve "<path>": <why> (<code>)`, the Workspace's own words.
   */
  under?: { code: string; why: string };
}

/**
 * `/usr/bin` and `/bin` in the Workspace, the default `PATH`'s folders, in
 * that order. just-bash looks a command up in each before it runs its own
 * (three requests a command, and a `stat` of the path it remembered from the
 * last lookup); while neither is a directory the interpreter answers those
 * requests itself.
 */
export type PathDirs = readonly [usrBin: PathDir, bin: PathDir];
