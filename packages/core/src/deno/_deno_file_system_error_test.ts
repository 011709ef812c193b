import assert from "node:assert/strict";
import { FileSystemError } from "../engine/file-system-error.ts";
import { fromDenoError } from "./_deno-file-system-error.ts";

/** The error the host raises for `attempt`. */
function hostError(attempt: () => unknown): Error {
  try {
    attempt();
  } catch (error) {
    return error as Error;
  }
  throw new Error("the host accepted it");
}

Deno.test("fromDenoError: maps each Deno filesystem error to its POSIX code", () => {
  const cases: [Error, string, string][] = [
    [new Deno.errors.NotFound("x"), "ENOENT", 'Cannot read "a/b": no such file (ENOENT)'],
    [new Deno.errors.IsADirectory("x"), "EISDIR", 'Cannot read "a/b": it is a directory (EISDIR)'],
    [
      new Deno.errors.NotADirectory("x"),
      "ENOTDIR",
      'Cannot read "a/b": a parent is not a directory (ENOTDIR)',
    ],
    [
      new Deno.errors.PermissionDenied("x"),
      "EACCES",
      'Cannot read "a/b": permission denied (EACCES)',
    ],
    [
      new Deno.errors.AlreadyExists("x"),
      "EEXIST",
      'Cannot read "a/b": it already exists (EEXIST)',
    ],
    [
      new Deno.errors.FilesystemLoop("x"),
      "ELOOP",
      'Cannot read "a/b": too many levels of symbolic links (ELOOP)',
    ],
    [
      hostError(() => Deno.statSync(`/${"n".repeat(300)}`)),
      "ENAMETOOLONG",
      'Cannot read "a/b": the path or a name in it is too long for this file system (ENAMETOOLONG)',
    ],
  ];
  for (const [denoError, code, message] of cases) {
    const error = fromDenoError(denoError, "read", "a/b");
    assert.ok(error instanceof FileSystemError);
    assert.equal(error.posix, code);
    assert.equal(error.path, "a/b");
    assert.equal(error.message, message);
    assert.equal(error.cause, denoError);
  }
});

Deno.test("fromDenoError: names a missing directory as such", () => {
  const error = fromDenoError(new Deno.errors.NotFound("x"), "list", "src", "directory");
  assert.ok(error instanceof FileSystemError);
  assert.equal(error.message, 'Cannot list "src": no such directory (ENOENT)');
});

Deno.test("fromDenoError: returns any other error unchanged", () => {
  const other = new Deno.errors.Interrupted("x");
  assert.equal(fromDenoError(other, "read", "a"), other);
  const plain = new TypeError("x");
  assert.equal(fromDenoError(plain, "read", "a"), plain);
});
