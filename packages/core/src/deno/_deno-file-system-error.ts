/**
 * Translates Deno's filesystem errors into the engine's {@linkcode FileSystemError}.
 *
 * Invariant: the produced message names only the logical path (relative to the
 * provider root), never the host path or any file content; the Deno error is
 * kept as `cause` for diagnosis.
 *
 * @module
 */
import type { FileSystemErrorCode } from "../engine/file-system-error.ts";
import { fileSystemRefusal, type MissingKind } from "../engine/file-system-refusal.ts";

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
  return fileSystemRefusal(code, action, path, missing, { cause: error });
}
