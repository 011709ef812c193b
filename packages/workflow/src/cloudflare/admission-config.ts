/**
 * The admission Worker's configuration: its `[vars]` and the secret
 * `XMD_GITHUB_TOKEN`, parsed with zod on every request.
 *
 * Invariants:
 * - Every key is required. A key missing or malformed makes the whole
 *   configuration unusable: the caller refuses every request (fail closed);
 *   the result names the keys, never a value.
 * - Every endpoint is an absolute `https:` URL, or `http:` on a loopback
 *   host (`localhost`, `127.x.x.x`, `[::1]`), with no credentials, query
 *   or fragment. Endpoints are configuration, never code branches: tests
 *   point them at loopback fakes.
 *
 * @module
 */
import * as z from "zod";

/** The configuration keys, in the order they are reported. */
export const CONFIG_KEYS = [
  "XMD_GITHUB_HOST",
  "XMD_GITHUB_API_URL",
  "XMD_OIDC_ISSUER",
  "XMD_OIDC_JWKS_URL",
  "XMD_OIDC_AUDIENCE",
  "XMD_REPOSITORIES",
  "XMD_GITHUB_TOKEN",
] as const;

/** The configuration, parsed. */
export interface AdmissionConfig {
  /** The GitHub host the issue identities belong to (`github.com`). */
  githubHost: string;
  /** GitHub's API URL; GraphQL is `<url>/graphql`. */
  githubApiUrl: URL;
  /** The exact `iss` of accepted tokens. */
  oidcIssuer: string;
  /** Where the issuer's JWKS is. */
  oidcJwksUrl: URL;
  /** The exact `aud` accepted tokens must carry. */
  oidcAudience: string;
  /** Allowed repositories, `owner/name` lowercased. */
  repositories: ReadonlySet<string>;
  /** The deployment's GitHub token (the secret). */
  githubToken: string;
}

/** The configuration, or the keys that are missing or malformed. */
export type ParsedConfig = { ok: true; config: AdmissionConfig } | { ok: false; keys: string[] };

const LOOPBACK = /^(localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\])$/;

/** The pattern of a repository's `owner/name` on GitHub. */
export const REPOSITORY_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/[A-Za-z0-9._-]{1,100}$/;

const Endpoint = z.string().max(2048).transform((text, context) => {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    context.addIssue({ code: "custom", message: "not a URL" });
    return z.NEVER;
  }
  const secure = url.protocol === "https:" ||
    (url.protocol === "http:" && LOOPBACK.test(url.hostname));
  if (!secure || url.username || url.password || url.search || url.hash) {
    context.addIssue({ code: "custom", message: "not an https URL" });
    return z.NEVER;
  }
  return url;
});

const Text = z.string().min(1).max(1024).regex(/^\S+$/);

const ConfigSchema = z.object({
  XMD_GITHUB_HOST: z.string().regex(
    /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/,
  ).max(253),
  XMD_GITHUB_API_URL: Endpoint,
  XMD_OIDC_ISSUER: Endpoint,
  XMD_OIDC_JWKS_URL: Endpoint,
  XMD_OIDC_AUDIENCE: Text,
  XMD_REPOSITORIES: z.string().max(65536).transform((text, context) => {
    const names = text.split(/[\s,]+/).filter((name) => name !== "");
    if (names.length === 0 || !names.every((name) => REPOSITORY_NAME.test(name))) {
      context.addIssue({ code: "custom", message: "not a list of owner/name" });
      return z.NEVER;
    }
    return new Set(names.map((name) => name.toLowerCase()));
  }),
  XMD_GITHUB_TOKEN: Text,
});

/** Parses the Worker's environment: the configuration, or each bad key (in `CONFIG_KEYS` order). */
export function parseConfig(env: Record<string, unknown>): ParsedConfig {
  const picked = Object.fromEntries(CONFIG_KEYS.map((key) => [key, env[key]]));
  const parsed = ConfigSchema.safeParse(picked);
  if (!parsed.success) {
    const bad = new Set(parsed.error.issues.map((issue) => String(issue.path[0])));
    return { ok: false, keys: CONFIG_KEYS.filter((key) => bad.has(key)) };
  }
  const data = parsed.data;
  const config: AdmissionConfig = {
    githubHost: data.XMD_GITHUB_HOST,
    // The issuer is compared as the exact string a token carries, not as a normalized URL.
    oidcIssuer: String(picked.XMD_OIDC_ISSUER),
    githubApiUrl: data.XMD_GITHUB_API_URL,
    oidcJwksUrl: data.XMD_OIDC_JWKS_URL,
    oidcAudience: data.XMD_OIDC_AUDIENCE,
    repositories: data.XMD_REPOSITORIES,
    githubToken: data.XMD_GITHUB_TOKEN,
  };
  return { ok: true, config };
}
