/**
 * The filesystem operations Worker Shell's interpreter may ask its host for,
 * and which of them may change the Workspace. Imported by the interpreter,
 * which runs with no configuration file: this module imports nothing.
 *
 * @module
 */

/** Filesystem operations the interpreter may ask for. */
export const FS_OPS = [
  "readFile",
  "writeFile",
  "appendFile",
  "exists",
  "stat",
  "lstat",
  "mkdir",
  "readdir",
  "readdirTypes",
  "rm",
  "cp",
  "mv",
  "chmod",
  "symlink",
  "link",
  "readlink",
  "realpath",
] as const;

/** A filesystem operation name. */
export type FsOp = typeof FS_OPS[number];

/** The operations that may change the Workspace; every other one only reads it. */
export const MUTATING_FS_OPS: ReadonlySet<FsOp> = new Set<FsOp>([
  "writeFile",
  "appendFile",
  "mkdir",
  "rm",
  "cp",
  "mv",
  "chmod",
  "symlink",
  "link",
]);

/**
 * Whether `/usr/bin` and `/bin` exist in the Workspace (links followed), in
 * that order: the default `PATH`'s folders. just-bash looks a command up in
 * each before it runs its own (three requests a command); while neither
 * exists the interpreter answers those lookups itself.
 */
export type PathDirs = readonly [usrBin: boolean, bin: boolean];
