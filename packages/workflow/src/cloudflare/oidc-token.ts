/**
 * Verifying a GitHub Actions OIDC token with jose: RS256 only, signed by a
 * key of the configured JWKS, the configured `iss` and `aud`, within `exp`
 * and `nbf`, and naming its repository (`repository`, `repository_id`).
 *
 * Invariants:
 * - A token over `MAX_TOKEN_LENGTH` characters is refused before it is
 *   parsed.
 * - A refusal names the check that failed (`token.expired`,
 *   `token.audience`, …), never a claim value, and nothing of the token is
 *   logged. A JWKS that cannot be fetched refuses every token (503,
 *   `oidc.unavailable`): fail closed.
 * - The remote key sets are kept per JWKS URL for the isolate's life, so
 *   keys are fetched once and refetched by jose when an unknown `kid`
 *   appears.
 *
 * @module
 */
import { createRemoteJWKSet, errors, jwtVerify } from "jose";
import * as z from "zod";
import { REPOSITORY_NAME } from "./admission-config.ts";
import { AdmissionRefusal } from "./admission-refusal.ts";

/** The longest token read (GitHub's are about 1.2 KB; this leaves room for its claims to grow). */
export const MAX_TOKEN_LENGTH = 8192;

/** What an accepted token says about the job. */
export interface TokenRepository {
  /** `owner/name` (claim `repository`). */
  repository: string;
  /** The repository's numeric id as a string (claim `repository_id`). */
  repositoryId: string;
}

/** What a token is checked against. */
export interface TokenChecks {
  /** The exact `iss`. */
  issuer: string;
  /** The exact `aud`. */
  audience: string;
  /** The issuer's JWKS. */
  jwksUrl: URL;
}

const RepositoryClaims = z.object({
  repository: z.string().regex(REPOSITORY_NAME),
  repository_id: z.string().regex(/^[1-9][0-9]{0,19}$/),
});

const keySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

function keySet(url: URL): ReturnType<typeof createRemoteJWKSet> {
  let set = keySets.get(url.href);
  if (set === undefined) {
    set = createRemoteJWKSet(url, { timeoutDuration: 10_000 });
    keySets.set(url.href, set);
  }
  return set;
}

/** Verifies `token`; throws `AdmissionRefusal` naming the failed check. */
export async function verifyToken(token: string, checks: TokenChecks): Promise<TokenRepository> {
  if (token.length > MAX_TOKEN_LENGTH) {
    throw new AdmissionRefusal(401, "token.malformed", "The token is longer than a token can be");
  }
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(token, keySet(checks.jwksUrl), {
      algorithms: ["RS256"],
      issuer: checks.issuer,
      audience: checks.audience,
      requiredClaims: ["exp"],
    }));
  } catch (error) {
    throw tokenRefusal(error);
  }
  const claims = RepositoryClaims.safeParse(payload);
  if (!claims.success) {
    throw new AdmissionRefusal(
      401,
      "token.claims",
      "The token does not name its repository (claims repository and repository_id)",
    );
  }
  return { repository: claims.data.repository, repositoryId: claims.data.repository_id };
}

function tokenRefusal(error: unknown): AdmissionRefusal {
  if (error instanceof errors.JWTExpired) {
    return new AdmissionRefusal(401, "token.expired", "The token has expired");
  }
  if (error instanceof errors.JWTClaimValidationFailed) {
    switch (error.claim) {
      case "iss":
        return new AdmissionRefusal(401, "token.issuer", "The token comes from another issuer");
      case "aud":
        return new AdmissionRefusal(
          401,
          "token.audience",
          "The token is for another audience than this host's",
        );
      case "nbf":
        return new AdmissionRefusal(401, "token.not_yet_valid", "The token is not valid yet");
      default:
        return new AdmissionRefusal(401, "token.claims", "The token's time claims are invalid");
    }
  }
  if (error instanceof errors.JOSEAlgNotAllowed) {
    return new AdmissionRefusal(401, "token.algorithm", "The token is not signed with RS256");
  }
  if (
    error instanceof errors.JWSSignatureVerificationFailed ||
    error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys
  ) {
    return new AdmissionRefusal(
      401,
      "token.signature",
      "The token is not signed by a key of the issuer",
    );
  }
  if (
    !(error instanceof errors.JOSEError) || error instanceof errors.JWKSTimeout ||
    error instanceof errors.JWKSInvalid ||
    // jose's own generic error is only its JWKS answer (not 200, not JSON).
    error.code === errors.JOSEError.code
  ) {
    // The key set could not be fetched or read (anything but jose's errors is fetch's): nothing
    // can be verified.
    return new AdmissionRefusal(
      503,
      "oidc.unavailable",
      "The token issuer's keys cannot be fetched; try again later",
    );
  }
  return new AdmissionRefusal(401, "token.malformed", "The token is not a signed JWT");
}
