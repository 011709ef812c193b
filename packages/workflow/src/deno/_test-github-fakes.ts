/**
 * Test support: loopback fakes of the two GitHub services the remote host
 * trusts, speaking their real wire formats, so admission is tested without
 * the internet (REMOTE.md: "the endpoints are configuration").
 *
 * - `FakeOidcIssuer`: a GitHub Actions OIDC issuer. An RS256 key pair made
 *   with jose, its JWKS (`jwksUrl`), and the token endpoint a job reaches
 *   through `ACTIONS_ID_TOKEN_REQUEST_URL` (GET `…&audience=<aud>` with
 *   `Authorization: Bearer $ACTIONS_ID_TOKEN_REQUEST_TOKEN`, answering
 *   `{"count":…,"value":"<JWT>"}`). `actionsEnv(repository, mint?)` gives
 *   the two variables of a job in that repository (whose tokens may be made
 *   bad as `mint` says); `mint()` signs a token directly, also the bad ones
 *   (another key, issuer or audience, expired, a claim left out); `issued`
 *   lists every token handed out, so a test can look for any of them.
 * - `FakeGitHub`: GitHub's GraphQL API (`POST <url>/graphql`, `Authorization:
 *   Bearer <token>`), answering the two lookups the admission Worker makes:
 *   `node(id:)` and `repository(owner:, name:) { issue(number:) }`, each with
 *   `id`, `number` and `repository { databaseId nameWithOwner }`. An issue has
 *   a legacy and a new node id; both find it, and `id` answers the new one
 *   only with `X-Github-Next-Global-ID: 1` (else the legacy one), as GitHub
 *   does during the migration. `transfer()` moves an issue (same node ids, a
 *   new number; the old `owner/repo#n` still finds it, as GitHub redirects),
 *   and `failWith(status)` answers every request with that 5xx until cleared.
 *
 * Both listen on 127.0.0.1 (a random port) in the test process; a Worker in
 * workerd reaches them there. Neither prints anything.
 *
 * @example An admission's fakes
 * ```ts ignore
 * await using oidc = await FakeOidcIssuer.start();
 * await using github = await FakeGitHub.start();
 * const repo = github.addRepository("octo/app");
 * const issue = github.addIssue(repo);
 * const token = await oidc.mint({ repository: repo, audience: "https://xmd.example" });
 * const env = oidc.actionsEnv(repo); // ACTIONS_ID_TOKEN_REQUEST_URL / _TOKEN for a CLI subprocess
 * ```
 *
 * @module
 */
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { z } from "zod";

/** A repository of the fake GitHub. */
export interface FakeRepository {
  /** `owner/name`. */
  nameWithOwner: string;
  /** GitHub's numeric id (the OIDC claim `repository_id` is it as a string). */
  databaseId: number;
}

/** An issue of the fake GitHub. */
export interface FakeIssue {
  /** The node id in the new format (`I_kwDO…`). */
  readonly id: string;
  /** The legacy node id (base64 of `05:Issue<databaseId>`). */
  readonly legacyId: string;
  /** Its repository now (changes on transfer). */
  repository: FakeRepository;
  /** Its number in that repository (changes on transfer). */
  number: number;
}

/** `owner/repo#number` of `issue` where it lives now. */
export function issueReference(issue: FakeIssue): string {
  return `${issue.repository.nameWithOwner}#${issue.number}`;
}

/** A loopback HTTP server with a base URL; closed on dispose. */
abstract class LoopbackService implements AsyncDisposable {
  readonly #server: Deno.HttpServer<Deno.NetAddr>;

  protected constructor() {
    this.#server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      (request) => this.handle(request),
    );
  }

  /** `http://127.0.0.1:<port>`, no trailing slash. */
  get url(): string {
    return `http://127.0.0.1:${this.#server.addr.port}`;
  }

  protected abstract handle(request: Request): Response | Promise<Response>;

  async [Symbol.asyncDispose](): Promise<void> {
    await this.#server.shutdown();
  }
}

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8" },
  });
}

/** What `FakeOidcIssuer.mint` signs; every field has a valid default. */
export interface MintOptions {
  /** The repository the job runs in (claims `repository`, `repository_id`, owner). */
  repository?: FakeRepository;
  /** Claim `aud` (default `https://xmd.example`). */
  audience?: string;
  /** Claim `iss` (default: this issuer's URL). */
  issuer?: string;
  /** Seconds until `exp` (default 300; negative for an expired token). */
  expiresIn?: number;
  /** Seconds from now of `nbf` (default -5). */
  notBefore?: number;
  /** Sign with a key of the same `kid` that is not in the JWKS (a bad signature). */
  foreignKey?: boolean;
  /** Claims to set (or with `undefined`, to leave out) over the defaults. */
  claims?: Record<string, unknown>;
}

/** A GitHub Actions OIDC issuer on loopback. */
export class FakeOidcIssuer extends LoopbackService {
  /** The kid of the issuer's one key. */
  static readonly KID = "xmd-test-key";
  readonly #privateKey: CryptoKey;
  readonly #foreignKey: CryptoKey;
  readonly #jwk: JWK;
  /** The job environments `actionsEnv` handed out, by request token: its repository and tokens. */
  readonly #jobs = new Map<string, { repository: FakeRepository; mint: MintOptions }>();
  /** The audiences the token endpoint was asked for, in order (`null`: none named). */
  readonly tokenRequests: (string | null)[] = [];
  /** Every token the endpoint handed out, and every request token `actionsEnv` made: secrets all. */
  readonly issued: string[] = [];
  /** How many times the JWKS was fetched. */
  jwksRequests = 0;

  private constructor(privateKey: CryptoKey, foreignKey: CryptoKey, jwk: JWK) {
    super();
    this.#privateKey = privateKey;
    this.#foreignKey = foreignKey;
    this.#jwk = jwk;
  }

  /** Makes the key pair and starts listening. */
  static async start(): Promise<FakeOidcIssuer> {
    const { privateKey, publicKey } = await generateKeyPair("RS256");
    const foreign = await generateKeyPair("RS256");
    const jwk = {
      ...await exportJWK(publicKey),
      kid: FakeOidcIssuer.KID,
      alg: "RS256",
      use: "sig",
    };
    return new FakeOidcIssuer(privateKey, foreign.privateKey, jwk);
  }

  /** The issuer (`iss` of its tokens): its base URL. */
  get issuer(): string {
    return this.url;
  }

  /** Its JWKS (`/.well-known/jwks`, where GitHub's is). */
  get jwksUrl(): string {
    return `${this.url}/.well-known/jwks`;
  }

  /**
   * The two variables GitHub Actions gives a job with `id-token: write` in
   * `repository`: the token endpoint (already holding a query, so a client
   * appends `&audience=`) and its bearer token. The endpoint signs that
   * job's tokens as `mint` says over the defaults (expired, with another
   * key or issuer…), its audience the one asked for unless `mint` names one.
   */
  actionsEnv(repository: FakeRepository, mint: MintOptions = {}): {
    ACTIONS_ID_TOKEN_REQUEST_URL: string;
    ACTIONS_ID_TOKEN_REQUEST_TOKEN: string;
  } {
    const token = `job-${crypto.randomUUID()}`;
    this.#jobs.set(token, { repository, mint });
    this.issued.push(token);
    return {
      ACTIONS_ID_TOKEN_REQUEST_URL: `${this.url}/_apis/distributedtask/idtoken?api-version=2.0`,
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: token,
    };
  }

  /** Signs a token with GitHub Actions' claims, as `options` says. */
  async mint(options: MintOptions = {}): Promise<string> {
    const repository = options.repository ?? { nameWithOwner: "octo/app", databaseId: 1 };
    const now = Math.floor(Date.now() / 1000);
    const [owner] = repository.nameWithOwner.split("/");
    const claims: Record<string, unknown> = {
      jti: crypto.randomUUID(),
      sub: `repo:${repository.nameWithOwner}:ref:refs/heads/main`,
      aud: options.audience ?? "https://xmd.example",
      ref: "refs/heads/main",
      repository: repository.nameWithOwner,
      repository_id: String(repository.databaseId),
      repository_owner: owner,
      repository_owner_id: "1",
      repository_visibility: "private",
      run_id: "1",
      run_number: "1",
      run_attempt: "1",
      actor: "octocat",
      actor_id: "1",
      event_name: "issues",
      workflow: "xmd",
      iss: options.issuer ?? this.issuer,
      iat: now,
      nbf: now + (options.notBefore ?? -5),
      exp: now + (options.expiresIn ?? 300),
    };
    for (const [name, value] of Object.entries(options.claims ?? {})) {
      if (value === undefined) delete claims[name];
      else claims[name] = value;
    }
    return await new SignJWT(claims)
      .setProtectedHeader({ alg: "RS256", typ: "JWT", kid: FakeOidcIssuer.KID })
      .sign(options.foreignKey ? this.#foreignKey : this.#privateKey);
  }

  protected async handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (request.method === "GET" && url.pathname === "/.well-known/jwks") {
      this.jwksRequests++;
      return json({ keys: [this.#jwk] });
    }
    if (request.method === "GET" && url.pathname === "/.well-known/openid-configuration") {
      return json({ issuer: this.issuer, jwks_uri: this.jwksUrl });
    }
    if (request.method === "GET" && url.pathname === "/_apis/distributedtask/idtoken") {
      const bearer = /^Bearer (.+)$/.exec(request.headers.get("authorization") ?? "")?.[1];
      const job = bearer === undefined ? undefined : this.#jobs.get(bearer);
      if (job === undefined) return json({ message: "Unauthorized" }, 401);
      const { repository, mint } = job;
      const audience = url.searchParams.get("audience");
      this.tokenRequests.push(audience);
      const value = await this.mint({
        ...mint,
        repository,
        audience: mint.audience ??
          audience ?? `https://github.com/${repository.nameWithOwner.split("/")[0]}`,
      });
      this.issued.push(value);
      return json({ count: value.length, value });
    }
    return json({ message: "Not Found" }, 404);
  }
}

const GraphQLRequestSchema = z.object({
  query: z.string(),
  variables: z.record(z.string(), z.unknown()).optional(),
});

/** One GraphQL request the fake GitHub received. */
export interface GitHubRequest {
  /** Its variables. */
  variables: Record<string, unknown>;
  /** Whether it carried `X-Github-Next-Global-ID: 1`. */
  nextGlobalId: boolean;
  /** Whether its bearer token was the API's token. */
  authorized: boolean;
}

/** GitHub's GraphQL API on loopback. */
export class FakeGitHub extends LoopbackService {
  /** The token the API accepts (a deployment's `XMD_GITHUB_TOKEN`). */
  readonly token = `ghs_test${crypto.randomUUID().replaceAll("-", "")}`;
  /** Every GraphQL request, in order. */
  readonly requests: GitHubRequest[] = [];
  readonly #repositories = new Map<string, FakeRepository>();
  readonly #issues: FakeIssue[] = [];
  /** Old `owner/name#n` of transferred issues → the issue (GitHub redirects them). */
  readonly #moved = new Map<string, FakeIssue>();
  #failure: number | undefined;
  #nextRepositoryId = 1_000_001;
  #nextIssueId = 2_000_001;

  private constructor() {
    super();
  }

  /**
   * Starts listening, with no repository. Its `url` is the API URL (a
   * deployment's `XMD_GITHUB_API_URL`); GraphQL is at `<url>/graphql`.
   */
  static start(): Promise<FakeGitHub> {
    return Promise.resolve(new FakeGitHub());
  }

  /** Adds repository `nameWithOwner` with a new database id. */
  addRepository(nameWithOwner: string): FakeRepository {
    const repository = { nameWithOwner, databaseId: this.#nextRepositoryId++ };
    this.#repositories.set(nameWithOwner.toLowerCase(), repository);
    return repository;
  }

  /** Opens an issue in `repository` (numbered after the ones it holds). */
  addIssue(repository: FakeRepository): FakeIssue {
    const databaseId = this.#nextIssueId++;
    const issue: FakeIssue = {
      id: `I_kwDO${
        btoa(`${repository.databaseId}.${databaseId}`).replaceAll("=", "").replaceAll("+", "-")
          .replaceAll("/", "_")
      }`,
      legacyId: btoa(`05:Issue${databaseId}`),
      repository,
      number: this.#nextNumber(repository),
    };
    this.#issues.push(issue);
    return issue;
  }

  /** Transfers `issue` to `repository`: same node ids, a new number there. */
  transfer(issue: FakeIssue, repository: FakeRepository): void {
    this.#moved.set(issueReference(issue).toLowerCase(), issue);
    issue.number = this.#nextNumber(repository);
    issue.repository = repository;
  }

  /** Answers every request with HTTP `status` (a 5xx), or normally again with `undefined`. */
  failWith(status: number | undefined): void {
    this.#failure = status;
  }

  #nextNumber(repository: FakeRepository): number {
    const numbers = this.#issues.filter((i) => i.repository === repository).map((i) => i.number);
    return Math.max(0, ...numbers) + 1;
  }

  protected async handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname !== "/graphql") return json({ message: "Not Found" }, 404);
    if (request.method !== "POST") return json({ message: "Not Found" }, 404);
    const authorized = request.headers.get("authorization") === `Bearer ${this.token}`;
    const nextGlobalId = request.headers.get("x-github-next-global-id") === "1";
    const body = GraphQLRequestSchema.safeParse(await request.json().catch(() => undefined));
    const variables = body.success ? body.data.variables ?? {} : {};
    this.requests.push({ variables, nextGlobalId, authorized });
    if (this.#failure !== undefined) return json({ message: "Server Error" }, this.#failure);
    if (!authorized) {
      return json(
        { message: "Bad credentials", documentation_url: "https://docs.github.com" },
        401,
      );
    }
    if (!body.success) return json({ message: "Problems parsing JSON" }, 400);
    const answer = (issue: FakeIssue) => ({
      __typename: "Issue",
      id: nextGlobalId ? issue.id : issue.legacyId,
      number: issue.number,
      repository: {
        databaseId: issue.repository.databaseId,
        nameWithOwner: issue.repository.nameWithOwner,
      },
    });
    if (typeof variables.id === "string") {
      const id = variables.id;
      const issue = this.#issues.find((i) => i.id === id || i.legacyId === id);
      if (issue) return json({ data: { node: answer(issue) } });
      return json({
        data: { node: null },
        errors: [{
          type: "NOT_FOUND",
          path: ["node"],
          message: `Could not resolve to a node with the global id of '${id}'`,
        }],
      });
    }
    const { owner, name, number } = variables;
    if (typeof owner === "string" && typeof name === "string" && typeof number === "number") {
      const repository = this.#repositories.get(`${owner}/${name}`.toLowerCase());
      if (repository === undefined) {
        return json({
          data: { repository: null },
          errors: [{
            type: "NOT_FOUND",
            path: ["repository"],
            message: `Could not resolve to a Repository with the name '${owner}/${name}'.`,
          }],
        });
      }
      const issue = this.#issues.find((i) => i.repository === repository && i.number === number) ??
        this.#moved.get(`${owner}/${name}#${number}`.toLowerCase());
      if (issue) return json({ data: { repository: { issue: answer(issue) } } });
      return json({
        data: { repository: { issue: null } },
        errors: [{
          type: "NOT_FOUND",
          path: ["repository", "issue"],
          message: `Could not resolve to an issue or pull request with the number of ${number}.`,
        }],
      });
    }
    return json({ errors: [{ message: "The fake answers node(id:) and repository.issue only" }] });
  }
}
