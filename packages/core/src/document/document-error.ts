/**
 * The refusal of a document: raised before anything runs (parsing, static
 * validation) or during expansion for a checked failure, always naming where.
 *
 * @module
 */
import { XmdError } from "../errors/xmd-error.ts";
import { formatPosition, type SourcePosition } from "./source-position.ts";

/**
 * A document problem at a known position. The message says what is wrong and
 * what to do; it never includes a stored value or a secret.
 *
 * @example Formatting a refusal
 * ```ts
 * import assert from "node:assert/strict";
 * import { DocumentError } from "@xmd/core";
 * const error = new DocumentError("Unknown component <Fiel>: use a built-in or add Fiel.md", {
 *   file: "doc.md",
 *   line: 3,
 *   column: 1,
 * });
 * assert.equal(
 *   error.message,
 *   "doc.md:3:1: Unknown component <Fiel>: use a built-in or add Fiel.md",
 * );
 * ```
 */
export class DocumentError extends XmdError {
  /** The class name, which journals record. */
  override name = "DocumentError";
  /** Its stable code. */
  readonly code = "document.invalid";
  /** Where the problem is. */
  readonly position: SourcePosition;
  /** The message without its position prefix. */
  readonly reason: string;

  /** A refusal for `reason` at `position`; the message is both, `file:line:column: reason`. */
  constructor(reason: string, position: SourcePosition, options?: ErrorOptions) {
    super(`${formatPosition(position)}: ${reason}`, options);
    this.position = position;
    this.reason = reason;
  }
}
