/**
 * How the admission Worker and the run's Durable Object refuse an HTTP
 * request: `AdmissionRefusal`, an error with an HTTP status, a stable code
 * and a message, answered as JSON `{"error":{"code":…,"message":…}}`.
 *
 * Invariant: a message states which check failed and what to set, never a
 * value: no token, claim, endpoint, credential or client header is ever
 * part of one (the messages are fixed strings of the code that throws).
 *
 * @module
 */

/** The codes of an admission refusal (RM-71..RM-78 give each its status). */
export type AdmissionCode =
  | "host.not_configured"
  | "route.not_found"
  | "upgrade.required"
  | "upgrade.protocol"
  | "token.missing"
  | "token.malformed"
  | "token.algorithm"
  | "token.signature"
  | "token.issuer"
  | "token.audience"
  | "token.expired"
  | "token.not_yet_valid"
  | "token.claims"
  | "repository.not_allowed"
  | "issue.invalid"
  | "issue.not_found"
  | "issue.other_repository"
  | "admission.missing"
  | "run.admission"
  | "oidc.unavailable"
  | "github.unavailable"
  | "internal";

/** A refused admission: the HTTP answer it becomes. */
export class AdmissionRefusal extends Error {
  override readonly name = "AdmissionRefusal";
  /** The HTTP status. */
  readonly status: number;
  /** The stable code. */
  readonly code: AdmissionCode;

  constructor(status: number, code: AdmissionCode, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }

  /** The JSON answer. */
  response(): Response {
    return new Response(JSON.stringify({ error: { code: this.code, message: this.message } }), {
      status: this.status,
      headers: { "content-type": "application/json; charset=utf-8" },
    });
  }
}
