/**
 * The secret gate: every journal event, and every answer a user delivers, is
 * scanned before it is persisted. A finding refuses the append — nothing is
 * redacted — and a scanner failure refuses too (fail closed). The matched
 * value never appears in an error, its `cause`, or a log. A text none of whose
 * pieces holds an anchor of any rule (`prefilter.ts`) is accepted without
 * running secretlint: no rule could report on it.
 *
 * @module
 */
import { createSecretGateFromScan } from "./secret-gate-internal.ts";
import { createSecretlintScan } from "./secretlint-scan.ts";

/**
 * Labels what is being persisted, given where in the text the secret starts
 * (a UTF-16 index; `undefined` when the scan failed), for callers that can
 * name a position (`source doc.md:3:7`).
 */
export type SecretWhere = (offset: number | undefined) => string;

/** Decides whether a text may be persisted. */
export interface SecretGate {
  /**
   * Resolves when `text` holds no secret; rejects with `SecretDetectedError`
   * or `SecretScanError`. `where` labels what is being persisted in the error
   * message (`journal event "File doc.md:3:1"`) and must not hold the text.
   */
  check(text: string, where: string | SecretWhere): Promise<void>;
  /**
   * True when the gate accepts everything (`--no-secret-detection`), so a
   * caller may skip gathering texts it would only pass to `check`.
   */
  readonly off?: boolean;
}

/**
 * Creates the gate: secretlint's recommended preset plus rules for bearer
 * tokens and credential-named fields. Create it once and reuse it; the rules
 * are configured here, not per check.
 *
 * @example Refusing a GitHub token
 * ```ts
 * import assert from "node:assert/strict";
 * import { createSecretGate, SecretDetectedError } from "@xmd/core";
 * const gate = createSecretGate();
 * await gate.check('{"exitCode":0,"stdout":"hello\\n","stderr":""}', 'journal event "Shell doc.md:4:1"');
 * const token = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A";
 * await assert.rejects(gate.check(`{"stdout":"${token}"}`, "answer"), SecretDetectedError);
 * ```
 */
export function createSecretGate(): SecretGate {
  return createSecretGateFromScan(createSecretlintScan());
}

/**
 * A gate that accepts everything, for `--no-secret-detection`. The caller
 * warns on stderr that the check is off.
 *
 * @example Accepting a secret
 * ```ts
 * import assert from "node:assert/strict";
 * import { disabledSecretGate } from "@xmd/core";
 * await assert.doesNotReject(disabledSecretGate.check("AKIA" + "QYLPMN5HHHFPZAM2", "answer"));
 * assert.equal(disabledSecretGate.off, true);
 * ```
 */
export const disabledSecretGate: SecretGate = Object.freeze({
  check: () => Promise.resolve(),
  off: true,
});
