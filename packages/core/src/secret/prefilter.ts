/**
 * The gate's prefilter: a cheap test that a text cannot hold anything the
 * gate's rules report, so the scan can accept it without running, or even
 * loading, secretlint (tens of milliseconds to load, a fixed cost per scan).
 *
 * Invariant: for every rule the gate runs (`_secretlint-engine.ts`), every
 * text on which that rule reports contains a match of one of the rule's
 * `ANCHORS` below, so a text matching none of them holds no finding and
 * skipping it refuses nothing the scan would have refused. Each anchor is
 * derived from the rule's own pattern in the locked package version
 * (`@secretlint/secretlint-rule-preset-recommend` 13.1.0, read from its
 * sources) or in this folder: it is either a literal every match of the
 * pattern contains, or the pattern itself with its lookarounds and `\b`
 * dropped, with the same or a case-insensitive flag. Either only widens what
 * matches. `prefilter_test.ts` lists the preset's rule ids and fails when a
 * rule without anchors appears (a version bump), and checks a sample
 * secret per rule passes the prefilter and is refused by the gate.
 *
 * @module
 */

/** One necessary condition: a pattern source, and whether it ignores case. */
export interface Anchor {
  /** A regular-expression source with no capture groups and no flags. */
  readonly source: string;
  /** Match it case-insensitively (the rule's pattern has the `i` flag). */
  readonly ignoreCase?: true;
}

/** The credential words a credential name ends with, each letter may be split by `_` or `-`. */
const CREDENTIAL_NAME_ENDS = [
  "password",
  "passwd",
  "pwd",
  "secret",
  "token",
  "key",
  "credentials",
  "credential",
  "authorization",
  "auth",
];
const SPLIT = "[_-]*";

/**
 * The anchors of every rule the gate runs, by rule id. A rule id maps to no
 * anchor only when the rule cannot report on what the gate gives it (the
 * gate scans texts with no file extension).
 */
export const ANCHORS: Readonly<Record<string, readonly Anchor[]>> = {
  // Access key ids (enabled by the gate), and the secret access key, whose
  // name is `secret` `access` `key` in any of three casings with optional `_`.
  // Account ids are reported but allowed by the gate's configuration.
  "@secretlint/secretlint-rule-aws": [
    { source: "(?:A3T[A-Z0-9]|AKIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ASIA)[A-Z0-9]{16}" },
    { source: "secret_?access_?key", ignoreCase: true },
  ],
  // Reads only `.p12` files (from disk) and `.json` sources; the gate's
  // sources have no extension. A service-account key's PEM is found by the
  // private-key rule.
  "@secretlint/secretlint-rule-gcp": [],
  "@secretlint/secretlint-rule-privatekey": [{ source: "-----BEGIN" }],
  // The x-oauth and `_authToken` patterns run only for package.json and
  // .npmrc paths (the gate's is neither); kept so a path change stays covered.
  "@secretlint/secretlint-rule-npm": [
    { source: "npm_[A-Za-z0-9_]{36}" },
    { source: ":x-oauth-basic@github" },
    { source: "_authToken=" },
  ],
  "@secretlint/secretlint-rule-basicauth": [
    { source: ":\\/\\/[-a-zA-Z0-9_]{1,256}:[-a-zA-Z0-9_]{1,256}@" },
  ],
  "@secretlint/secretlint-rule-slack": [
    { source: "(?:xoxb|xoxp|xapp|xoxa|xoxo|xoxr)-" },
    { source: "https:\\/\\/hooks\\.slack\\.com\\/services\\/", ignoreCase: true },
  ],
  "@secretlint/secretlint-rule-sendgrid": [{ source: "SG\\.\\w" }],
  "@secretlint/secretlint-rule-shopify": [{ source: "(?:shppa|shpca|shpat|shpss)_" }],
  "@secretlint/secretlint-rule-stripe": [{ source: "(?:sk_live|sk_test|rk_live|rk_test)_" }],
  "@secretlint/secretlint-rule-github": [
    { source: "(?:ghp|gho|ghu|ghs|ghr)_" },
    { source: "github_pat_" },
  ],
  "@secretlint/secretlint-rule-gitlab": [{ source: "glpat-" }],
  "@secretlint/secretlint-rule-grafana": [{ source: "glc_" }, { source: "glsa_" }],
  // Both of its patterns hold the base64 of `OpenAI` in the middle.
  "@secretlint/secretlint-rule-openai": [{ source: "T3BlbkFJ" }],
  "@secretlint/secretlint-rule-anthropic": [{ source: "sk-ant-api0\\d-" }],
  "@secretlint/secretlint-rule-groq": [{ source: "gsk_[a-zA-Z0-9]{52}" }],
  "@secretlint/secretlint-rule-huggingface": [{ source: "hf_[a-zA-Z]{34}" }],
  "@secretlint/secretlint-rule-linear": [{ source: "lin_api_" }],
  "@secretlint/secretlint-rule-notion": [{ source: "ntn_[0-9]{11}" }],
  "@secretlint/secretlint-rule-1password": [{ source: "ops_ey" }],
  "@secretlint/secretlint-rule-database-connection-string": [
    { source: "(?:mongodb(?:\\+srv)?|mysqlx?|postgres(?:ql)?):\\/\\/", ignoreCase: true },
  ],
  "@secretlint/secretlint-rule-hashicorp-vault": [{ source: "hv[sbr]\\." }],
  "@secretlint/secretlint-rule-vercel": [{ source: "(?:vcp|vci|vca|vcr|vck)_" }],
  "@secretlint/secretlint-rule-databricks": [{ source: "dapi[A-Fa-f0-9]{32}" }],
  "@secretlint/secretlint-rule-docker": [{ source: "dckr_pat_" }],
  "@secretlint/secretlint-rule-figma": [{ source: "figd_" }],
  "@secretlint/secretlint-rule-cloudflare": [{ source: "(?:cfk|cfut|cfat)_" }],
  "@secretlint/secretlint-rule-tailscale": [{ source: "tskey-" }],
  "xmd/bearer-token": [{ source: "bearer(?:[ \\t]|\\\\t)", ignoreCase: true }],
  // A reported key names a credential once `_` and `-` are dropped, so it
  // ends with one of these words (letters split by `_` or `-`), then maybe
  // `_` or `-`; the key is followed by its separator: `"` (after backslashes)
  // and `:`, or `:` after blanks, or `=`.
  "xmd/credential-field": [{
    source: `(?:${
      CREDENTIAL_NAME_ENDS.map((word) => [...word].join(SPLIT)).join("|")
    })${SPLIT}(?:\\\\*")?\\s*[:=]`,
    ignoreCase: true,
  }],
};

function union(anchors: readonly Anchor[]): RegExp {
  return new RegExp(
    anchors.map((anchor) => anchor.ignoreCase ? `(?i:${anchor.source})` : anchor.source).join("|"),
  );
}

const ANY_ANCHOR = union(Object.values(ANCHORS).flat());

/**
 * False when no rule of the gate can report anything in `text` (see the
 * module's invariant); true means only that the full scan must run.
 */
export function mayHoldSecret(text: string): boolean {
  return ANY_ANCHOR.test(text);
}
