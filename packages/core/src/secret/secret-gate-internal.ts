/**
 * The gate's contract, apart from any scanner: a finding refuses with
 * {@linkcode SecretDetectedError}, a scanner failure refuses with
 * {@linkcode SecretScanError} (fail closed), and only a scan that completes
 * with no finding lets the caller persist. Widened here so tests can drive the
 * gate with a scanner that finds or throws on demand.
 *
 * @module
 */
import { SecretDetectedError, SecretScanError } from "./secret-detected-error.ts";
import type { SecretGate } from "./secret-gate.ts";

/** A secret found in a text: the rule that fired and where the match starts (UTF-16 index). */
export interface SecretFinding {
  /** The rule's kebab-case id. */
  readonly ruleId: string;
  /** The index in the scanned text where the match starts. */
  readonly offset: number;
}

/**
 * Scans `text` and resolves to its first secret, or `undefined` when it holds
 * none. It must not put the text in anything it throws: the gate keeps only
 * the thrown error's name anyway.
 */
export type SecretScan = (text: string) => Promise<SecretFinding | undefined>;

/** A gate that refuses on whatever `scan` finds and on any failure of `scan`. */
export function createSecretGateFromScan(scan: SecretScan): SecretGate {
  return {
    async check(text, where) {
      let finding: SecretFinding | undefined;
      try {
        finding = await scan(text);
      } catch (thrown) {
        throw new SecretScanError(typeof where === "string" ? where : where(undefined), thrown);
      }
      if (finding !== undefined) {
        throw new SecretDetectedError(
          typeof where === "string" ? where : where(finding.offset),
          finding.ruleId,
        );
      }
    },
  };
}
