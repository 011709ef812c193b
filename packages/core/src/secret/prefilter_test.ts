import assert from "node:assert/strict";
import { rules as recommendedRules } from "@secretlint/secretlint-rule-preset-recommend";
import { CONFIG, lintSource } from "./_secretlint-engine.ts";
import { ANCHORS, mayHoldSecret } from "./prefilter.ts";
import { createSecretGate, SecretDetectedError } from "./mod.ts";

// Fake secrets are built by concatenation so this repository's own files do
// not trip secret scanners.
const A40 = "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A7b9C";
const HEX32 = "0123456789abcdef0123456789abcdef";
const PEM_BODY = "MIIEow" + "IBAAKCAQEA".repeat(8) + "\n" + "q7Zx9YbW3vT1sR5uP0oN".repeat(4);

/**
 * One sample per pattern of every rule that can report on what the gate
 * scans, with the rule id the gate names: each must pass the prefilter and
 * be refused.
 */
const SAMPLES: Record<string, readonly (readonly [sample: string, ruleId: string])[]> = {
  "@secretlint/secretlint-rule-aws": [
    [`key = ${"AKIA" + "QYLPMN5HHHFPZAM2"}`, "aws-access-key-id"],
    [
      `aws_secret_access_key = ${"wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYzz3d5e7g9i"}`,
      "aws-secret-access-key",
    ],
    [
      `"AwsSecretAccessKey": "${"wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYzz3d5e7g9i"}"`,
      "aws-secret-access-key",
    ],
  ],
  "@secretlint/secretlint-rule-gcp": [],
  "@secretlint/secretlint-rule-privatekey": [
    [
      "-----BEGIN RSA " + "PRIVATE KEY-----\n" + PEM_BODY + "\n-----END RSA " + "PRIVATE KEY-----",
      "private-key",
    ],
  ],
  "@secretlint/secretlint-rule-npm": [["npm_" + A40.slice(0, 36), "npm-access-token"]],
  "@secretlint/secretlint-rule-basicauth": [[
    "https://ada:" + "Qx7vLp2s@build.internal.dev/x",
    "basic-auth",
  ]],
  "@secretlint/secretlint-rule-slack": [
    ["xoxb-" + "1234567890123-1234567890123-" + "aBcDeFgHiJkLmNoPqRsTuVwX", "slack-token"],
    [
      "HTTPS://hooks.slack.com/services/" + "T0123ABCD/B0123ABCD/" + "aBcDeFgHiJkLmNoPqRsTuVwX",
      "incoming-webhook",
    ],
  ],
  "@secretlint/secretlint-rule-sendgrid": [[
    "SG." + "a".repeat(21) + "b" + "." + A40 + "cd3",
    "sendgrid-key",
  ]],
  "@secretlint/secretlint-rule-shopify": [["shpat_" + HEX32, "shopify-key"]],
  "@secretlint/secretlint-rule-stripe": [["sk_live_" + A40.slice(0, 24), "stripe-secret-key-live"]],
  "@secretlint/secretlint-rule-github": [
    ["ghp_" + A40.slice(0, 36), "github-token"],
    ["github_pat_" + (A40 + A40 + "ab").slice(0, 82), "github-token"],
    ["ghs_" + "12345_" + "abc.def.ghi", "github-token"],
  ],
  "@secretlint/secretlint-rule-gitlab": [[
    "glpat-" + A40.slice(0, 20),
    "gitlab-personal-access-token",
  ]],
  "@secretlint/secretlint-rule-grafana": [
    ["glc_" + A40.slice(0, 32), "grafana-cloud-api-token"],
    ["glsa_" + A40.slice(0, 32) + "_0123abcd", "grafana-service-account-token"],
  ],
  "@secretlint/secretlint-rule-openai": [
    ["sk-" + A40.slice(0, 20) + "T3Blbk" + "FJ" + A40.slice(0, 20), "openai-token"],
    [
      "sk-proj-" + (A40 + A40).slice(0, 58) + "T3Blbk" + "FJ" + (A40 + A40).slice(0, 58),
      "openai-token",
    ],
  ],
  "@secretlint/secretlint-rule-anthropic": [
    ["sk-ant-" + "api03-" + (A40 + A40 + A40).slice(0, 93) + "AA", "anthropic-api-key"],
  ],
  "@secretlint/secretlint-rule-groq": [["gsk_" + (A40 + A40).slice(0, 52), "groq-api-key"]],
  "@secretlint/secretlint-rule-huggingface": [[
    "hf_" + "abcdefghijklmnopqrstuvwxyzABCDEFGH",
    "huggingface-user-access-token",
  ]],
  "@secretlint/secretlint-rule-linear": [["lin_api_" + A40.slice(0, 32), "linear-api-token"]],
  "@secretlint/secretlint-rule-notion": [[
    "ntn_" + "12345678901" + A40.slice(0, 35),
    "notion-integration-token",
  ]],
  "@secretlint/secretlint-rule-1password": [
    [
      "ops_" +
      btoa(
        JSON.stringify({ signInAddress: "my.1password.com", userAuth: A40, x: A40 + A40 + "a" }),
      ),
      "ops-token",
    ],
  ],
  "@secretlint/secretlint-rule-database-connection-string": [
    ["MongoDB+SRV://ada:" + "Qx7vLp2s@cluster0.example.net/db", "mongo-db-connection"],
    ["jdbc:mysql://ada:" + "Qx7vLp2s@db.internal/app", "my-sql-connection"],
    ["postgresql://ada:" + "Qx7vLp2s@db.internal/app", "postgre-sql-connection"],
  ],
  "@secretlint/secretlint-rule-hashicorp-vault": [
    ["hvs." + (A40 + A40 + A40).slice(0, 95), "hashicorp-vault-service-token"],
    ["hvb." + (A40 + A40 + A40 + A40).slice(0, 140), "hashicorp-vault-batch-token"],
    ["hvr." + (A40 + A40 + A40).slice(0, 95), "hashicorp-vault-recovery-token"],
  ],
  "@secretlint/secretlint-rule-vercel": [[
    "vcp_" + A40.slice(0, 24),
    "vercel-personal-access-token",
  ]],
  "@secretlint/secretlint-rule-databricks": [["dapi" + HEX32, "databricks-personal-access-token"]],
  "@secretlint/secretlint-rule-docker": [[
    "dckr_pat_" + A40.slice(0, 27),
    "docker-personal-access-token",
  ]],
  "@secretlint/secretlint-rule-figma": [["figd_" + A40, "figma-personal-access-token"]],
  "@secretlint/secretlint-rule-cloudflare": [[
    "cfut_" + A40 + "0123abcd",
    "cloudflare-user-api-token",
  ]],
  "@secretlint/secretlint-rule-tailscale": [[
    "tskey-" + "auth-" + "kAbCdEf1234-" + A40.slice(0, 20),
    "tailscale-auth-key",
  ]],
  "xmd/bearer-token": [["Authorization: Bearer " + A40, "bearer-token"]],
  "xmd/credential-field": [
    [JSON.stringify({ Pass_Word: "s3cr3t-" + "Value-42" }), "credential-field"],
    [
      JSON.stringify({ stdout: JSON.stringify({ api_key_: "s3cr3t-" + "Value-42" }) }),
      "credential-field",
    ],
    ["db:\n  TOKEN  : s3cr3t-" + "Value-42\n", "credential-field"],
    ["--auth=s3cr3t-" + "Value-42", "credential-field"],
  ],
};

Deno.test("JRN-50: every rule the gate runs has prefilter anchors, and only those", () => {
  const ran = CONFIG.rules.map((rule) => rule.id).sort();
  assert.deepEqual(Object.keys(ANCHORS).sort(), ran);
  // The preset's own list (a version bump that adds a rule adds it here).
  for (const rule of recommendedRules) {
    if (rule.meta.id === "@secretlint/secretlint-rule-filter-comments") continue;
    assert.ok(ANCHORS[rule.meta.id] !== undefined, `no prefilter anchors for ${rule.meta.id}`);
  }
  // Only the rule that cannot read extension-less sources has none.
  assert.deepEqual(
    Object.entries(ANCHORS).filter(([, anchors]) => anchors.length === 0).map(([id]) => id),
    ["@secretlint/secretlint-rule-gcp"],
  );
  assert.deepEqual(Object.keys(SAMPLES).sort(), ran);
});

Deno.test("JRN-50: a sample secret for each rule passes the prefilter and is refused by the gate", async () => {
  const gate = createSecretGate();
  for (const [id, samples] of Object.entries(SAMPLES)) {
    for (const [sample, ruleId] of samples) {
      for (const text of [sample, `before\n${sample}\nafter`]) {
        assert.ok(mayHoldSecret(text), `${id}: the prefilter skips ${text}`);
        const error = await gate.check(text, "sample").then(
          () => assert.fail(`${id}: the gate accepts ${text}`),
          (error: unknown) => error,
        );
        assert.ok(error instanceof SecretDetectedError);
        assert.equal(error.ruleId, ruleId, `${id}: ${text}`);
      }
    }
  }
});

Deno.test("JRN-50: a GCP service-account key is refused by its private key", async () => {
  const key = JSON.stringify({
    type: "service_account",
    private_key_id: HEX32,
    private_key: "-----BEGIN " + "PRIVATE KEY-----\n" + PEM_BODY + "\n-----END " +
      "PRIVATE KEY-----\n",
  });
  assert.ok(mayHoldSecret(key));
  await assert.rejects(createSecretGate().check(key, "key"), SecretDetectedError);
});

/** secretlint's own findings in `text`, without the prefilter. */
async function findings(text: string): Promise<number> {
  const result = await lintSource({
    source: { content: text, filePath: "secret-gate", ext: "", contentType: "text" },
    options: { config: CONFIG, maskSecrets: true, noPhysicFilePath: true },
  });
  return result.messages.length;
}

Deno.test("JRN-50: whatever secretlint refuses, the prefilter lets through to it (near misses, contexts, this repository's files)", async () => {
  const texts: string[] = [];
  for (const samples of Object.values(SAMPLES)) {
    for (const [sample] of samples) {
      // Each sample in contexts, and cut or changed one character at a time:
      // the prefilter may not drop any variant secretlint still refuses.
      for (let i = 0; i < sample.length; i++) {
        texts.push(sample.slice(0, i) + sample.slice(i + 1));
        texts.push(sample.slice(0, i) + "_" + sample.slice(i + 1));
        texts.push(sample.slice(0, i) + sample[i].toUpperCase() + sample.slice(i + 1));
        texts.push(sample.slice(0, i) + sample[i].toLowerCase() + sample.slice(i + 1));
      }
      texts.push(
        sample.toUpperCase(),
        sample.toLowerCase(),
        `x${sample}x`,
        JSON.stringify([sample]),
      );
      texts.push(JSON.stringify(JSON.stringify({ out: sample })));
    }
  }
  const root = new URL("../../../../", import.meta.url);
  for (const folder of ["", "specs/", "examples/", "packages/core/src/secret/"]) {
    for (const entry of Deno.readDirSync(new URL(folder, root))) {
      if (entry.isFile && /\.(md|ts)$/.test(entry.name)) {
        texts.push(Deno.readTextFileSync(new URL(folder + entry.name, root)));
      }
    }
  }
  let refused = 0;
  for (const text of texts) {
    if (await findings(text) === 0) continue;
    refused++;
    assert.ok(mayHoldSecret(text), `the prefilter skips a text secretlint refuses: ${text}`);
  }
  // The variants really exercise refusals, not only acceptances.
  assert.ok(refused > texts.length / 4, `${refused} of ${texts.length}`);
});

Deno.test("JRN-50: ordinary texts do not reach secretlint", () => {
  const prose = "the quick brown fox jumps over the lazy dog ".repeat(30);
  const texts = [
    prose,
    JSON.stringify({
      type: "yield",
      coroutineId: "root",
      root: HEX32 + HEX32,
      description: { type: "file.write", name: "File doc.md:4:1", path: "s/0.txt", sha256: HEX32 },
      result: { status: "ok", value: null },
    }),
    JSON.stringify({
      exitCode: 0,
      stdout: "Compiled 12 files in 0.8s\nSee https://example.com/docs\n",
    }),
    "The key to the house is under the mat. Tokens are counted per request; auth happens first.",
    "# Release notes\n\n- Faster start-up\n- A `<File>` writes its text\n",
  ];
  for (const text of texts) assert.equal(mayHoldSecret(text), false, text);
});
