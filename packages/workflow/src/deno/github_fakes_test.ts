/**
 * The loopback GitHub fakes (`_test-github-fakes.ts`) speak the real wire
 * formats: a token from the Actions token endpoint verifies with jose
 * against the JWKS, and the GraphQL API answers both lookups as GitHub does.
 */
import assert from "node:assert/strict";
import { createRemoteJWKSet, jwtVerify } from "jose";
import { FakeGitHub, FakeOidcIssuer, issueReference } from "./_test-github-fakes.ts";

async function graphql(
  github: FakeGitHub,
  variables: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${github.url}/graphql`, {
    method: "POST",
    headers: { authorization: `Bearer ${github.token}`, ...headers },
    body: JSON.stringify({ query: "query { … }", variables }),
  });
  return { status: response.status, body: await response.json() };
}

Deno.test("test support: the fake issuer's Actions token endpoint answers {value}, a JWT that verifies against its JWKS", async () => {
  await using oidc = await FakeOidcIssuer.start();
  const repository = { nameWithOwner: "octo/app", databaseId: 42 };
  const env = oidc.actionsEnv(repository);
  const refused = await fetch(`${env.ACTIONS_ID_TOKEN_REQUEST_URL}&audience=a`);
  assert.equal(refused.status, 401);
  await refused.body?.cancel();
  const response = await fetch(`${env.ACTIONS_ID_TOKEN_REQUEST_URL}&audience=https://x.test`, {
    headers: { authorization: `Bearer ${env.ACTIONS_ID_TOKEN_REQUEST_TOKEN}` },
  });
  const { value } = await response.json();
  const jwks = createRemoteJWKSet(new URL(oidc.jwksUrl));
  const { payload, protectedHeader } = await jwtVerify(value, jwks, {
    issuer: oidc.issuer,
    audience: "https://x.test",
    algorithms: ["RS256"],
  });
  assert.equal(protectedHeader.alg, "RS256");
  assert.equal(payload.repository, "octo/app");
  assert.equal(payload.repository_id, "42");
  assert.deepEqual(oidc.tokenRequests, ["https://x.test"]);
  const foreign = await oidc.mint({ repository, foreignKey: true });
  await assert.rejects(jwtVerify(foreign, jwks), { code: "ERR_JWS_SIGNATURE_VERIFICATION_FAILED" });
});

Deno.test("test support: the fake GitHub finds an issue by both node ids and by owner/repo#n, answers the new id only with X-Github-Next-Global-ID, follows a transfer and fails on request", async () => {
  await using github = await FakeGitHub.start();
  const app = github.addRepository("octo/app");
  const other = github.addRepository("octo/other");
  const issue = github.addIssue(app);
  const next = { "x-github-next-global-id": "1" };
  const found = {
    data: {
      node: {
        __typename: "Issue",
        id: issue.id,
        number: 1,
        repository: { databaseId: app.databaseId, nameWithOwner: "octo/app" },
      },
    },
  };
  assert.deepEqual(await graphql(github, { id: issue.legacyId }, next), {
    status: 200,
    body: found,
  });
  assert.deepEqual(await graphql(github, { id: issue.id }, next), { status: 200, body: found });
  const legacy = await graphql(github, { id: issue.id });
  assert.equal((legacy.body as typeof found).data.node.id, issue.legacyId);
  const byNumber = await graphql(github, { owner: "octo", name: "app", number: 1 }, next);
  assert.deepEqual(byNumber.body, { data: { repository: { issue: found.data.node } } });
  github.transfer(issue, other);
  assert.equal(issueReference(issue), "octo/other#1");
  const moved = await graphql(github, { owner: "octo", name: "app", number: 1 }, next);
  const movedIssue = (moved.body as { data: { repository: { issue: typeof found.data.node } } })
    .data.repository.issue;
  assert.deepEqual(movedIssue.repository, {
    databaseId: other.databaseId,
    nameWithOwner: "octo/other",
  });
  assert.equal(movedIssue.id, issue.id);
  const missing = await graphql(github, { id: "I_nope" }, next);
  assert.deepEqual((missing.body as { data: unknown }).data, { node: null });
  github.failWith(502);
  assert.equal((await graphql(github, { id: issue.id }, next)).status, 502);
  github.failWith(undefined);
  const unauthorized = await fetch(`${github.url}/graphql`, { method: "POST", body: "{}" });
  assert.equal(unauthorized.status, 401);
  await unauthorized.body?.cancel();
  assert.ok(
    github.requests.every((request, i) => request.authorized || i === github.requests.length - 1),
  );
});
