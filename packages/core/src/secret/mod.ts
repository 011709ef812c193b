/**
 * The secret gate: scans what is about to be persisted and refuses it when it
 * looks like it holds a secret, or when the scan fails. It never redacts, and
 * the matched value never appears in an error, a `cause` or a log.
 *
 * @module
 */
export {
  createSecretGate,
  disabledSecretGate,
  type SecretGate,
  type SecretWhere,
} from "./secret-gate.ts";
export {
  SecretDetectedError,
  SecretScanError,
  type SecretScanFailure,
} from "./secret-detected-error.ts";
