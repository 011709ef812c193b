/**
 * The secret gate's refusals. Both errors carry only a caller-supplied label
 * and, for a finding, the rule that fired: the scanned text, the matched
 * value and anything a scanner said about it never reach a message, a field
 * or a `cause`, so printing, logging or serializing the error leaks nothing.
 *
 * @module
 */
import { XmdError } from "../errors/xmd-error.ts";

const NO_SECRET_DETECTION_HINT =
  "or pass --no-secret-detection to turn the check off for one command.";

/**
 * A value was refused because it contains what looks like a secret. Nothing
 * was persisted and nothing was redacted.
 *
 * @example Refusing a journal event
 * ```ts
 * import assert from "node:assert/strict";
 * import { SecretDetectedError } from "@xmd/core";
 * const error = new SecretDetectedError('journal event "File doc.md:3:1"', "aws-access-key-id");
 * assert.match(error.message, /^Cannot persist journal event "File doc\.md:3:1": it contains /);
 * ```
 */
export class SecretDetectedError extends XmdError {
  /** The class name, which journals record. */
  override name = "SecretDetectedError";
  /** Its stable code. */
  readonly code = "secret.detected";
  /** The kind of secret found, such as `aws-access-key-id` or `credential-field`. */
  readonly ruleId: string;
  /** What was refused, as the caller labelled it (`journal event "File doc.md:3:1"`). */
  readonly where: string;

  /** A refusal to persist `where`, which rule `ruleId` matched. */
  constructor(where: string, ruleId: string) {
    super(
      `Cannot persist ${where}: it contains what looks like a secret (rule ${ruleId}). ` +
        `Remove the secret from the document or its inputs, ${NO_SECRET_DETECTION_HINT}`,
    );
    this.where = where;
    this.ruleId = ruleId;
  }
}

/** What a failed scanner threw, reduced to its error name so it cannot echo the scanned text. */
export interface SecretScanFailure {
  /** The thrown error's `name` (`TypeError`, `RangeError`…), or `unknown`. */
  readonly name: string;
}

/**
 * The secret scan itself failed, so the value was refused (the gate fails
 * closed) and nothing was persisted. `cause` is a {@linkcode SecretScanFailure}:
 * only the thrown error's name, since its message or stack could quote the
 * text being scanned.
 *
 * @example Refusing after a scanner failure
 * ```ts
 * import assert from "node:assert/strict";
 * import { SecretScanError } from "@xmd/core";
 * const error = new SecretScanError('journal event "File doc.md:3:1"', new TypeError("boom"));
 * assert.deepEqual(error.cause, { name: "TypeError" });
 * ```
 */
export class SecretScanError extends XmdError {
  /** The class name, which journals record. */
  override name = "SecretScanError";
  /** Its stable code. */
  readonly code = "secret.scan_failed";
  /** What was refused, as the caller labelled it. */
  readonly where: string;

  /** A refusal to persist `where` because the scan threw `thrown` (kept only as its class name). */
  constructor(where: string, thrown: unknown) {
    // A failed scan is a bug in the gate, not in the text: retrying would fail the same way.
    super(
      `Cannot persist ${where}: the secret scan failed, so nothing was persisted. ` +
        `This is a bug in xmd (please report it); to go on without the check, pass ` +
        `--no-secret-detection for one command.`,
      { cause: scanFailure(thrown) },
    );
    this.where = where;
  }
}

// An error name is normally a short identifier; anything else could be
// attacker- or content-controlled text, so it is dropped.
const ERROR_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

function scanFailure(thrown: unknown): SecretScanFailure {
  const name = thrown instanceof Error ? thrown.name : undefined;
  return { name: name !== undefined && ERROR_NAME.test(name) ? name : "unknown" };
}
