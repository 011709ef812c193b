import assert from "node:assert/strict";
import { type AdmissionConfig, CONFIG_KEYS, parseConfig } from "./admission-config.ts";

const GOOD: Record<string, string> = {
  XMD_GITHUB_HOST: "github.com",
  XMD_GITHUB_API_URL: "https://api.github.com",
  XMD_OIDC_ISSUER: "https://token.actions.githubusercontent.com",
  XMD_OIDC_JWKS_URL: "https://token.actions.githubusercontent.com/.well-known/jwks",
  XMD_OIDC_AUDIENCE: "https://xmd.example",
  XMD_REPOSITORIES: "octo/app,Octo/Other  octo/third.js",
  XMD_GITHUB_TOKEN: "ghs_secretvalue",
};

function refusedKeys(change: Record<string, unknown>): readonly string[] {
  const parsed = parseConfig({ ...GOOD, ...change });
  if (parsed.ok) return [];
  // Only key names: no value comes back.
  for (const key of parsed.keys) assert.ok((CONFIG_KEYS as readonly string[]).includes(key));
  return parsed.keys;
}

function configOf(env: Record<string, string>): AdmissionConfig {
  const parsed = parseConfig(env);
  if (!parsed.ok) throw new Error(`refused: ${parsed.keys}`);
  return parsed.config;
}

Deno.test("RM-75: the configuration parses every key; the allowlist is lowercased; the issuer is kept as the exact string", () => {
  const config = configOf(GOOD);
  assert.deepEqual([...config.repositories], ["octo/app", "octo/other", "octo/third.js"]);
  assert.equal(config.oidcIssuer, GOOD.XMD_OIDC_ISSUER);
  assert.equal(config.githubApiUrl.href, "https://api.github.com/");
  for (const loopback of ["http://127.0.0.1:8080", "http://localhost:1", "http://[::1]:9"]) {
    assert.deepEqual(refusedKeys({ XMD_GITHUB_API_URL: loopback }), []);
  }
});

Deno.test("RM-75: a missing or malformed key is named (never its value); an endpoint must be https or loopback http", () => {
  for (const key of CONFIG_KEYS) {
    assert.deepEqual(refusedKeys({ [key]: undefined }), [key]);
  }
  const endpoints = [
    "http://api.example.com",
    "ftp://127.0.0.1",
    "https://user:pass@api.example.com",
    "https://api.example.com/?token=x",
    "https://api.example.com/#x",
    "api.example.com",
    "",
  ];
  for (const url of endpoints) {
    assert.deepEqual(refusedKeys({ XMD_OIDC_JWKS_URL: url }), ["XMD_OIDC_JWKS_URL"], url);
  }
  assert.deepEqual(refusedKeys({ XMD_REPOSITORIES: "octo" }), ["XMD_REPOSITORIES"]);
  assert.deepEqual(refusedKeys({ XMD_REPOSITORIES: "" }), ["XMD_REPOSITORIES"]);
  assert.deepEqual(refusedKeys({ XMD_OIDC_AUDIENCE: "two words" }), ["XMD_OIDC_AUDIENCE"]);
  assert.deepEqual(refusedKeys({ XMD_GITHUB_HOST: "GitHub.com" }), ["XMD_GITHUB_HOST"]);
  assert.deepEqual(refusedKeys({ XMD_GITHUB_TOKEN: 42 }), ["XMD_GITHUB_TOKEN"]);
  assert.deepEqual(
    refusedKeys({ XMD_GITHUB_TOKEN: "", XMD_OIDC_ISSUER: "http://issuer.example" }),
    ["XMD_OIDC_ISSUER", "XMD_GITHUB_TOKEN"],
  );
});
