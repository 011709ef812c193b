/**
 * The wording of a filesystem refusal, shared by every provider: the host's
 * (`xmd run`) and a Workspace's (`xmd workflow`) say the same thing, in the
 * same words, about the same logical path, so a document fails the same way
 * and journals the same error in both modes.
 *
 * @module
 */
import { FileSystemError, type FileSystemErrorCode } from "./file-system-error.ts";

/** Whether a missing path should be described as a file or a directory. */
export type MissingKind = "file" | "directory";

/** What each code means to someone who asked for a path. */
function describe(code: FileSystemErrorCode, missing: MissingKind): string {
  switch (code) {
    case "ENOENT":
      return `no such ${missing}`;
    case "EISDIR":
      return "it is a directory";
    case "ENOTDIR":
      return missing === "directory" ? "it is not a directory" : "a parent is not a directory";
    case "EACCES":
      return "permission denied";
    case "EEXIST":
      return "it already exists";
    case "ELOOP":
      return "too many levels of symbolic links";
    case "ENOTEMPTY":
      return "the directory is not empty";
    case "EINVAL":
      return "invalid argument";
    case "EPERM":
      return "operation not permitted";
    case "ENAMETOOLONG":
      return "the path or a name in it is too long for this file system";
  }
}

/**
 * The refusal of `action` on the logical `path` with `code`:
 * `Cannot read "files/a.txt": no such file (ENOENT)`. `missing` says what was
 * expected there (a listing expects a directory); `why` replaces the usual
 * reason where a provider knows better.
 *
 * @example Wording a missing file
 * ```ts
 * import assert from "node:assert/strict";
 * import { fileSystemRefusal } from "./file-system-refusal.ts";
 * const error = fileSystemRefusal("ENOENT", "read", "files/missing.txt");
 * assert.equal(error.message, 'Cannot read "files/missing.txt": no such file (ENOENT)');
 * assert.equal(error.posix, "ENOENT");
 * assert.equal(error.code, "fs.enoent");
 * ```
 */
export function fileSystemRefusal(
  code: FileSystemErrorCode,
  action: string,
  path: string,
  missing: MissingKind = "file",
  options?: ErrorOptions & { why?: string },
): FileSystemError {
  const why = options?.why ?? describe(code, missing);
  return new FileSystemError(code, path, `Cannot ${action} "${path}": ${why} (${code})`, options);
}
