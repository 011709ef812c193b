/**
 * Admission: from a runner's upgrade request to the admission record of its
 * run, or a refusal. The checks run in this order, each refusing before the
 * next runs: the route (`GET /v1/connect`), the WebSocket upgrade and its
 * subprotocol, the bearer token (signature, issuer, audience, time,
 * repository claims), the repository allowlist, the issue reference, the
 * issue reread through GitHub, and that the issue lives in the token's
 * repository.
 *
 * Invariants:
 * - The admission record is built only from GitHub's answer and the
 *   configured host: the run id from `XMD_GITHUB_HOST` and the issue's
 *   node id as GitHub answered it, the repository id GitHub answered. No
 *   client value reaches it, and nothing of the token beyond the check
 *   that its repository id equals GitHub's.
 * - Nothing here writes anywhere: a refusal has changed nothing.
 *
 * @module
 */
import { WEBSOCKET_PROTOCOL } from "../remote/frames.ts";
import type { Admission } from "../remote/remote-table.ts";
import { issueRunId } from "../remote/run-id.ts";
import type { AdmissionConfig } from "./admission-config.ts";
import { AdmissionRefusal } from "./admission-refusal.ts";
import { parseIssueReference, rereadIssue } from "./issue-reread.ts";
import { verifyToken } from "./oidc-token.ts";

/** The one route. */
export const CONNECT_PATH = "/v1/connect";

/** The header naming the issue. */
export const ISSUE_HEADER = "x-xmd-issue";

/** Admits `request` under `config`, or throws `AdmissionRefusal`. */
export async function admit(request: Request, config: AdmissionConfig): Promise<Admission> {
  const url = new URL(request.url);
  if (url.pathname !== CONNECT_PATH || request.method !== "GET") {
    throw new AdmissionRefusal(
      404,
      "route.not_found",
      `This host answers only GET ${CONNECT_PATH}`,
    );
  }
  if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") {
    throw new AdmissionRefusal(
      426,
      "upgrade.required",
      `${CONNECT_PATH} is a WebSocket: send Upgrade: websocket`,
    );
  }
  const offered = (request.headers.get("sec-websocket-protocol") ?? "").split(/\s*,\s*/);
  if (!offered.includes(WEBSOCKET_PROTOCOL)) {
    throw new AdmissionRefusal(
      400,
      "upgrade.protocol",
      `The upgrade does not offer the subprotocol ${WEBSOCKET_PROTOCOL}`,
    );
  }
  const token = /^Bearer ([^\s]+)$/i.exec(request.headers.get("authorization") ?? "")?.[1];
  if (token === undefined) {
    throw new AdmissionRefusal(
      401,
      "token.missing",
      "The request carries no token: send Authorization: Bearer <the job's OIDC token>",
    );
  }
  const claims = await verifyToken(token, {
    issuer: config.oidcIssuer,
    audience: config.oidcAudience,
    jwksUrl: config.oidcJwksUrl,
  });
  if (!config.repositories.has(claims.repository.toLowerCase())) {
    throw new AdmissionRefusal(
      403,
      "repository.not_allowed",
      "The token's repository is not allowed on this host (XMD_REPOSITORIES)",
    );
  }
  const reference = parseIssueReference(request.headers.get(ISSUE_HEADER));
  const issue = await rereadIssue(reference, {
    apiUrl: config.githubApiUrl,
    token: config.githubToken,
  });
  if (String(issue.repositoryId) !== claims.repositoryId) {
    throw new AdmissionRefusal(
      403,
      "issue.other_repository",
      "The issue is not in the repository the token was issued for",
    );
  }
  return {
    runId: await issueRunId(config.githubHost, issue.id),
    githubHost: config.githubHost,
    issueNodeId: issue.id,
    repositoryId: String(issue.repositoryId),
  };
}
