/**
 * The base of every xmd error: a message for people and a stable `code` for
 * programs. Classify an error by its class (`instanceof`) or its `code`,
 * never by `name` or message text: `name` stays the class name a journal
 * records, and messages may be reworded.
 *
 * @module
 */
import type { XmdErrorCode } from "./error-codes.ts";

/**
 * An error of xmd, with its stable code from `ERROR_CODES`.
 *
 * @example Classifying by code
 * ```ts
 * import assert from "node:assert/strict";
 * import { FileSystemError, XmdError } from "@xmd/core/protocol";
 * const error: unknown = new FileSystemError("ENOENT", "a.txt", 'Cannot read "a.txt": no such file (ENOENT)');
 * assert.ok(error instanceof XmdError);
 * assert.equal(error.code, "fs.enoent");
 * ```
 */
export abstract class XmdError extends Error {
  /** The stable code of this kind of error (`run.not_found`, `fs.enoent`, …). */
  abstract readonly code: XmdErrorCode;
}
