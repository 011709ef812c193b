/**
 * Translates Deno's filesystem errors into the engine's {@linkcode FileSystemError}.
 *
 * Invariant: the produced message names only the logical path (relative to the
 * provider root), never the host path or any file content; the Deno error is
 * kept as `cause` for diagnosis.
 *
 * @module
 */
import { FileSystemError, type FileSystemErrorCode } from "../engine/file-system-error.ts";

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
      return "a parent is not a directory";
    case "EACCES":
      return "permission denied";
    case "EEXIST":
      return "a file is in the way of a parent directory";
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

/** The POSIX code of a Deno filesystem error, or `undefined` for an error that is not one. */
function codeOf(error: unknown): FileSystemErrorCode | undefined {
  if (error instanceof Deno.errors.NotFound) return "ENOENT";
  if (error instanceof Deno.errors.IsADirectory) return "EISDIR";
  if (error instanceof Deno.errors.NotADirectory) return "ENOTDIR";
  if (error instanceof Deno.errors.PermissionDenied) return "EACCES";
  if (error instanceof Deno.errors.AlreadyExists) return "EEXIST";
  if (error instanceof Deno.errors.FilesystemLoop) return "ELOOP";
  // Deno has no class for it: a plain Error carrying the POSIX code.
  if ((error as { code?: unknown } | null)?.code === "ENAMETOOLONG") return "ENAMETOOLONG";
  return undefined;
}

/**
 * Maps a Deno filesystem error to a {@linkcode FileSystemError} about the
 * logical `path` (`Cannot read "a": no such file (ENOENT)`); any other error
 * is returned unchanged for the caller to rethrow.
 */
export function fromDenoError(
  error: unknown,
  action: string,
  path: string,
  missing: MissingKind = "file",
): unknown {
  const code = codeOf(error);
  if (code === undefined) return error;
  return refusal(code, action, path, missing, { cause: error });
}

/** The {@linkcode FileSystemError} for `code` about the logical `path`, worded as `fromDenoError` words it. */
export function refusal(
  code: FileSystemErrorCode,
  action: string,
  path: string,
  missing: MissingKind = "file",
  options?: ErrorOptions,
): FileSystemError {
  return new FileSystemError(
    code,
    path,
    `Cannot ${action} "${path}": ${describe(code, missing)} (${code})`,
    options,
  );
}
