/**
 * How the admission Worker and the run's Durable Object refuse an HTTP
 * request: `AdmissionRefusal` (code `admission.refused`), an error with an
 * HTTP status, a stable reason and a message, answered as JSON
 * `{"error":{"code":<reason>,"message":…}}`.
 *
 * Invariant: a message states which check failed and what to set, never a
 * value: no token, claim, endpoint, credential or client header is ever
 * part of one (the messages are fixed strings of the code that throws).
 *
 * @module
 */
import { XmdError } from "@xmd/core/protocol";

/** Why an admission was refused: the `code` of its JSON answer (RM-71..RM-78 give each its status). */
export type AdmissionReason =
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
export class AdmissionRefusal extends XmdError {
  override readonly name = "AdmissionRefusal";
  readonly code = "admission.refused";
  /** The HTTP status. */
  readonly status: number;
  /** The stable reason (the answer's `code`). */
  readonly reason: AdmissionReason;

  constructor(status: number, reason: AdmissionReason, message: string) {
    super(message);
    this.status = status;
    this.reason = reason;
  }

  /** The JSON answer. */
  response(): Response {
    return new Response(JSON.stringify({ error: { code: this.reason, message: this.message } }), {
      status: this.status,
      headers: { "content-type": "application/json; charset=utf-8" },
    });
  }
}
