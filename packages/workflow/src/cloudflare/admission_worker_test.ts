/**
 * The admission Worker in real workerd (miniflare), its configuration
 * pointing at the loopback OIDC issuer and GitHub GraphQL fakes: REMOTE.md's
 * evidence 1 (one issue, however named, with any valid token, is one run,
 * one Durable Object, one lifecycle) and 6 (every invalid admission is
 * refused with the Durable Object's tables unchanged, and no token, claim,
 * endpoint or credential in a reply, a log line or a table).
 */
import assert from "node:assert/strict";
import { SignJWT } from "jose";
import { z } from "zod";
import {
  FakeGitHub,
  type FakeIssue,
  FakeOidcIssuer,
  type FakeRepository,
  issueReference,
  type MintOptions,
} from "../deno/_test-github-fakes.ts";
import { call, newRun, refusedCode } from "../remote/_test-remote.ts";
import { decodeReply, encodeMessage, WEBSOCKET_PROTOCOL } from "../remote/frames.ts";
import { issueRunId } from "../remote/run-id.ts";
import { RemoteConnection } from "../deno/remote-connection.ts";
import { RemoteConnectionRefusedError } from "../remote/remote-refusal.ts";
import { CONFIG_KEYS } from "./admission-config.ts";
import { AdmissionWorkerd, type Connected } from "./_test-admission-workerd.ts";

const AUDIENCE = "https://xmd.test";
const HOST = "github.com";

const RefusalSchema = z.object({
  error: z.object({ code: z.string(), message: z.string() }).strict(),
}).strict();

/** The fakes, a Worker configured for them, and what must never leak. */
interface World {
  oidc: FakeOidcIssuer;
  github: FakeGitHub;
  workerd: AdmissionWorkerd;
  app: FakeRepository;
  other: FakeRepository;
  stranger: FakeRepository;
  issue: FakeIssue;
  runId: string;
  /** Every token minted, every endpoint and credential: none may appear in a reply, log or table. */
  secrets: Set<string>;
  /** Every reply body seen. */
  replies: string[];
  mint(options?: MintOptions): Promise<string>;
  admit(token: string, issue: string, worker?: string): Promise<Connected>;
}

function configOf(oidc: FakeOidcIssuer, github: FakeGitHub): Record<string, string> {
  return {
    XMD_GITHUB_HOST: HOST,
    XMD_GITHUB_API_URL: github.url,
    XMD_OIDC_ISSUER: oidc.issuer,
    XMD_OIDC_JWKS_URL: oidc.jwksUrl,
    XMD_OIDC_AUDIENCE: AUDIENCE,
    XMD_REPOSITORIES: "octo/app, Octo/Other",
    XMD_GITHUB_TOKEN: github.token,
  };
}

async function world(variants: Record<string, Record<string, string>> = {}): Promise<
  World & AsyncDisposable
> {
  const oidc = await FakeOidcIssuer.start();
  const github = await FakeGitHub.start();
  const app = github.addRepository("octo/app");
  const other = github.addRepository("octo/other");
  const stranger = github.addRepository("octo/stranger");
  const issue = github.addIssue(app);
  const config = configOf(oidc, github);
  const workerd = await AdmissionWorkerd.start({
    bindings: config,
    variants: Object.fromEntries(
      Object.entries(variants).map(([name, change]) => {
        const bindings: Record<string, string> = { ...config, ...change };
        for (const [key, value] of Object.entries(change)) if (value === "") delete bindings[key];
        return [name, bindings];
      }),
    ),
  });
  const secrets = new Set([github.token, github.url, oidc.url, oidc.jwksUrl]);
  // A variant's values (a malformed endpoint included) are configuration: never echoed either.
  for (const change of Object.values(variants)) {
    for (const value of Object.values(change)) if (value.trim().length > 3) secrets.add(value);
  }
  for (const url of [github.url, oidc.url]) secrets.add(new URL(url).host);
  const replies: string[] = [];
  return {
    oidc,
    github,
    workerd,
    app,
    other,
    stranger,
    issue,
    runId: await issueRunId(HOST, issue.id),
    secrets,
    replies,
    async mint(options = {}) {
      const jti = `jti-${crypto.randomUUID()}`;
      const token = await oidc.mint({
        repository: app,
        audience: AUDIENCE,
        ...options,
        claims: { jti, ...options.claims },
      });
      secrets.add(token);
      // Each part of the token, and its unique claim value, is a secret too.
      for (const part of token.split(".")) secrets.add(part);
      secrets.add(jti);
      return token;
    },
    async admit(token, issue, worker) {
      const connected = await workerd.connect(
        { authorization: `Bearer ${token}`, "x-xmd-issue": issue },
        worker,
      );
      if (connected.status !== 101) replies.push(connected.body);
      return connected;
    },
    async [Symbol.asyncDispose]() {
      await workerd[Symbol.asyncDispose]();
      await github[Symbol.asyncDispose]();
      await oidc[Symbol.asyncDispose]();
    },
  };
}

/** The refusal's `[status, code]`, after checking its body is exactly `{error:{code,message}}`. */
function refusalOf(connected: Connected): [number, string] {
  assert.notEqual(connected.status, 101, "the admission was accepted");
  const body = RefusalSchema.parse(JSON.parse(connected.body));
  assert.ok(body.error.message.length > 0);
  return [connected.status, body.error.code];
}

/** Opens the issue's run once (create under the admitted id), then closes the socket. */
async function createRun(w: World): Promise<void> {
  const connected = await w.admit(await w.mint(), issueReference(w.issue));
  assert.equal(connected.status, 101, connected.body);
  const socket = connected.socket!;
  await call(socket.send, { type: "hello", role: "executor" });
  await call(socket.send, { type: "create", run: newRun(w.runId) });
  await socket.close();
}

function assertNoSecret(w: World, texts: string[]): void {
  for (const text of texts) {
    for (const secret of w.secrets) {
      assert.ok(!text.includes(secret), `a secret (${secret.length} characters) leaked`);
    }
    // Claim values of the fakes' tokens (their names are fine, their values are not).
    for (const value of ["octocat", "refs/heads/main", "repo:octo/"]) {
      assert.ok(!text.includes(value), `the claim value ${value} leaked`);
    }
  }
}

Deno.test("RM-71, RM-76, RM-79: one issue named by owner/repo#n, its legacy and its new node id, with two tokens, is one run id, one Durable Object and one lifecycle", async () => {
  await using w = await world();
  const tokens = [await w.mint(), await w.mint()];
  assert.notEqual(tokens[0], tokens[1]);
  // The first admission opens the run: its create must carry the id the Worker derived.
  const first = await w.admit(tokens[0], issueReference(w.issue));
  assert.equal(first.status, 101, first.body);
  assert.equal(first.protocol, WEBSOCKET_PROTOCOL);
  const owner = first.socket!;
  assert.equal((await call(owner.send, { type: "hello", role: "executor" })).epoch, 1);
  await call(owner.send, { type: "create", run: newRun(w.runId) });
  // By the legacy id, with the other token: the same object, whose executor is live.
  const legacy = await w.admit(tokens[1], w.issue.legacyId);
  assert.equal(legacy.status, 101, legacy.body);
  const busy = encodeMessage({ v: 1, id: 1, type: "hello", role: "executor" });
  assert.equal(await refusedCode(legacy.socket!.send, busy), "run.busy");
  // By the new id, over the runner's own WebSocket client (TCP to workerd, headers on the upgrade).
  const url = new URL("/v1/connect", w.workerd.url);
  url.protocol = "ws:";
  const byNew = await RemoteConnection.open(url, {
    headers: { authorization: `Bearer ${tokens[0]}`, "x-xmd-issue": w.issue.id },
  });
  await byNew.call({ type: "hello", role: "reader" });
  const { reply: read } = await byNew.call({ type: "read-run" });
  assert.equal(read.run?.record.id, w.runId);
  assert.equal(read.run?.record.status, "running");
  // The same client without a token is refused at the upgrade, with the Worker's JSON answer.
  const refused = await RemoteConnection.open(url, { headers: { "x-xmd-issue": w.issue.id } })
    .then(() => undefined, (error) => error);
  assert.ok(refused instanceof RemoteConnectionRefusedError, String(refused));
  assert.equal(refused.status, 401);
  assert.equal(RefusalSchema.parse(JSON.parse(refused.body)).error.code, "token.missing");
  // One lifecycle: once the owner's socket closes, the next acquisition is the second epoch.
  await owner.close();
  let epoch: number | null = null;
  for (let attempt = 0; attempt < 200 && epoch === null; attempt++) {
    const { reply } = decodeReply(
      await legacy.socket!.send(
        encodeMessage({ v: 1, id: 2 + attempt, type: "hello", role: "executor" }),
      ),
    );
    if (reply.type === "hello") epoch = reply.epoch;
    else {
      assert.ok(reply.type === "error" && reply.code === "run.busy");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
  assert.equal(epoch, 2);
  await legacy.socket!.close();
  byNew.close();
  // The object is bound to GitHub's answer: the new node id and the repository's database id.
  const dump = await w.workerd.dump(w.runId);
  const bound = JSON.stringify({
    epoch: 2,
    github_host: "github.com",
    issue_node_id: w.issue.id,
    links: "[]",
    repository_id: String(w.app.databaseId),
    run_id: w.runId,
    singleton: 1,
  });
  assert.ok(dump.endsWith(`xmd_remote: ${bound}`), dump);
  // Every reread asked GitHub for new ids, with the deployment's token.
  assert.equal(w.github.requests.length, 3);
  assert.ok(w.github.requests.every((r) => r.nextGlobalId && r.authorized));
  assertNoSecret(w, [dump, w.workerd.logs]);
});

/** Each configuration key missing, and each endpoint malformed, as a Worker of its own. */
const BAD_CONFIGURATIONS: Record<string, Record<string, string>> = {
  ...Object.fromEntries(CONFIG_KEYS.map((key) => [`missing-${key}`, { [key]: "" }])),
  "plain-http-jwks": { XMD_OIDC_JWKS_URL: "http://keys.example.com/jwks" },
  "relative-api": { XMD_GITHUB_API_URL: "/graphql" },
  "empty-allowlist": { XMD_REPOSITORIES: " , " },
  "bad-host": { XMD_GITHUB_HOST: "https://github.com/" },
};

/** A loopback URL nothing listens on. */
async function closedUrl(): Promise<string> {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response(),
  );
  const url = `http://127.0.0.1:${server.addr.port}`;
  await server.shutdown();
  return url;
}

Deno.test("RM-72..RM-79: every invalid admission is refused with {error:{code,message}}, the run's tables unchanged, and no token, claim, endpoint or credential in a reply, a log line or a table", async (t) => {
  const closed = await closedUrl();
  await using w = await world({
    ...BAD_CONFIGURATIONS,
    "github-unreachable": { XMD_GITHUB_API_URL: closed },
    "jwks-unreachable": { XMD_OIDC_JWKS_URL: `${closed}/.well-known/jwks` },
  });
  w.secrets.add(closed);
  await createRun(w);
  const before = await w.workerd.dump(w.runId);
  const reference = issueReference(w.issue);
  const refused = async (connected: Promise<Connected>, status: number, code: string) => {
    assert.deepEqual(refusalOf(await connected), [status, code]);
    assert.equal(await w.workerd.dump(w.runId), before);
  };

  await t.step("RM-72: the token's signature, issuer, audience, time and form", async () => {
    await refused(w.admit(await w.mint({ foreignKey: true }), reference), 401, "token.signature");
    await using stranger = await FakeOidcIssuer.start();
    const foreign = await stranger.mint({ repository: w.app, audience: AUDIENCE });
    w.secrets.add(foreign);
    await refused(w.admit(foreign, reference), 401, "token.signature");
    const otherIssuer = await w.mint({ issuer: "https://token.actions.githubusercontent.com" });
    await refused(w.admit(otherIssuer, reference), 401, "token.issuer");
    await refused(
      w.admit(await w.mint({ audience: "https://elsewhere.test" }), reference),
      401,
      "token.audience",
    );
    await refused(w.admit(await w.mint({ expiresIn: -60 }), reference), 401, "token.expired");
    await refused(
      w.admit(await w.mint({ notBefore: 600, expiresIn: 900 }), reference),
      401,
      "token.not_yet_valid",
    );
    await refused(
      w.admit(await w.mint({ claims: { exp: undefined } }), reference),
      401,
      "token.claims",
    );
    const hs256 = await new SignJWT({ repository: "octo/app", repository_id: "1" })
      .setProtectedHeader({ alg: "HS256", kid: FakeOidcIssuer.KID })
      .setIssuer(w.oidc.issuer).setAudience(AUDIENCE).setExpirationTime("5m")
      .sign(new TextEncoder().encode("a shared secret of at least 32 bytes!"));
    w.secrets.add(hs256);
    await refused(w.admit(hs256, reference), 401, "token.algorithm");
    await refused(w.admit("not-a-jwt", reference), 401, "token.malformed");
    await refused(
      w.admit(`${await w.mint()}${"A".repeat(8192)}`, reference),
      401,
      "token.malformed",
    );
    await refused(
      w.workerd.connect({ "x-xmd-issue": reference }),
      401,
      "token.missing",
    );
  });

  await t.step("RM-73: a missing, non-allowlisted or other repository", async () => {
    for (const claim of ["repository", "repository_id"]) {
      await refused(
        w.admit(await w.mint({ claims: { [claim]: undefined } }), reference),
        401,
        "token.claims",
      );
    }
    await refused(
      w.admit(await w.mint({ repository: w.stranger }), reference),
      403,
      "repository.not_allowed",
    );
    // A token of another allowlisted repository names this repository's issue.
    await refused(
      w.admit(await w.mint({ repository: w.other }), reference),
      403,
      "issue.other_repository",
    );
    await refused(
      w.admit(await w.mint({ repository: w.other }), w.issue.id),
      403,
      "issue.other_repository",
    );
  });

  await t.step("RM-74: the route, the upgrade and the issue reference", async () => {
    const token = await w.mint();
    const plain = await w.workerd.fetch(new URL("/v1/connect", w.workerd.url), {
      headers: { authorization: `Bearer ${token}`, "x-xmd-issue": reference },
    });
    const asConnected = async (response: Response): Promise<Connected> => {
      const body = await response.text();
      w.replies.push(body);
      return { status: response.status, protocol: null, body, socket: undefined };
    };
    await refused(asConnected(plain), 426, "upgrade.required");
    await refused(
      asConnected(await w.workerd.fetch(new URL("/", w.workerd.url))),
      404,
      "route.not_found",
    );
    await refused(
      asConnected(
        await w.workerd.fetch(new URL("/v1/connect", w.workerd.url), {
          method: "POST",
          body: "{}",
        }),
      ),
      404,
      "route.not_found",
    );
    await refused(
      w.workerd.connect({
        "sec-websocket-protocol": "xmd.remote.v2",
        authorization: `Bearer ${token}`,
        "x-xmd-issue": reference,
      }),
      400,
      "upgrade.protocol",
    );
    await refused(w.workerd.connect({ authorization: `Bearer ${token}` }), 400, "issue.invalid");
    for (const bad of ["octo/app#0", "octo/app#x", "octo#1", "a b", "octo/app#1#2"]) {
      await refused(w.admit(token, bad), 400, "issue.invalid");
    }
    await refused(w.admit(token, "octo/app#99"), 404, "issue.not_found");
    await refused(w.admit(token, "octo/nowhere#1"), 404, "issue.not_found");
    await refused(w.admit(token, "I_kwDOnothing"), 404, "issue.not_found");
  });

  await t.step(
    "RM-75: each configuration key missing or malformed refuses every request",
    async () => {
      const token = await w.mint();
      for (const [name, change] of Object.entries(BAD_CONFIGURATIONS)) {
        const logged = w.workerd.logs.length;
        await refused(w.admit(token, reference, name), 503, "host.not_configured");
        // Even a request for another route: every request.
        const other = await w.workerd.fetch(new URL("/", w.workerd.url), {}, name);
        const body = await other.text();
        w.replies.push(body);
        assert.equal(other.status, 503);
        assert.equal(RefusalSchema.parse(JSON.parse(body)).error.code, "host.not_configured");
        // The log names the key.
        const [key] = Object.keys(change);
        for (let i = 0; i < 100 && !w.workerd.logs.slice(logged).includes(key); i++) {
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        assert.match(w.workerd.logs.slice(logged), new RegExp(`not configured: [A-Z_, ]*${key}`));
      }
    },
  );

  await t.step(
    "RM-77: GitHub failing or unreachable, or the issuer's keys unreachable, fails closed",
    async () => {
      const token = await w.mint();
      for (const status of [500, 502, 503]) {
        w.github.failWith(status);
        await refused(w.admit(token, reference), 503, "github.unavailable");
        await refused(w.admit(token, w.issue.id), 503, "github.unavailable");
      }
      w.github.failWith(undefined);
      await refused(w.admit(token, reference, "github-unreachable"), 503, "github.unavailable");
      await refused(w.admit(token, reference, "jwks-unreachable"), 503, "oidc.unavailable");
    },
  );

  await t.step(
    "RM-78: a transferred issue is refused by its run, also by a fresh object, in the same words",
    async () => {
      w.github.transfer(w.issue, w.other);
      // The old repository's token: GitHub now answers the issue in the other repository.
      await refused(w.admit(await w.mint(), reference), 403, "issue.other_repository");
      // The new repository's token: the same node id, the same run, bound to the first repository.
      const moved = await w.mint({ repository: w.other });
      const live = await w.admit(moved, w.issue.id);
      await refused(Promise.resolve(live), 409, "run.admission");
      await refused(w.admit(moved, issueReference(w.issue)), 409, "run.admission");
      await w.workerd.restart();
      const fresh = await w.admit(moved, w.issue.legacyId);
      await refused(Promise.resolve(fresh), 409, "run.admission");
      // The CLI prints the message: the live object and the one that reopened its database agree.
      const message = (connected: Connected) =>
        RefusalSchema.parse(JSON.parse(connected.body)).error.message;
      assert.equal(
        message(live),
        "Cannot open this run's Durable Object: its issue was admitted in another repository and transferred since",
      );
      assert.equal(message(fresh), message(live));
    },
  );

  // The Worker logged each refusal by status and code, and nothing of a value.
  assert.match(w.workerd.logs, /xmd admission: refused 401 token\.expired/);
  assert.match(
    w.workerd.logs,
    /xmd admission: refused 503 github\.unavailable \(GitHub answered 502\)/,
  );
  assertNoSecret(w, [...w.replies, w.workerd.logs, await w.workerd.dump(w.runId)]);
});
