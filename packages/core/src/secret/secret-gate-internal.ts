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

/**
 * Scans `text` and resolves to the rule id of its first secret, or `undefined`
 * when it holds none. It must not put the text in anything it throws: the gate
 * keeps only the thrown error's name anyway.
 */
export type SecretScan = (text: string) => Promise<string | undefined>;

/** A gate that refuses on whatever `scan` finds and on any failure of `scan`. */
export function createSecretGateFromScan(scan: SecretScan): SecretGate {
  return {
    async check(text, where) {
      let ruleId: string | undefined;
      try {
        ruleId = await scan(text);
      } catch (thrown) {
        throw new SecretScanError(where, thrown);
      }
      if (ruleId !== undefined) throw new SecretDetectedError(where, ruleId);
    },
  };
}
