import assert from "node:assert/strict";
import type { JsonValue } from "../json/json-value.ts";
import { isCredentialName } from "./credential-field-rule.ts";
import { createSecretGateFromScan } from "./secret-gate-internal.ts";
import {
  createSecretGate,
  disabledSecretGate,
  SecretDetectedError,
  SecretScanError,
} from "./mod.ts";

// Fake secrets are built by concatenation so this repository's own files do
// not trip secret scanners.
const AWS_ACCESS_KEY_ID = "AKIA" + "QYLPMN5HHHFPZAM2";
const GITHUB_TOKEN = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A";
const SLACK_TOKEN = "xoxb-" + "1234567890123-1234567890123-" + "aBcDeFgHiJkLmNoPqRsTuVwX";
const PRIVATE_KEY_BODY = "MIIEow" + "IBAAKCAQEA".repeat(8) + "\n" +
  "q7Zx9YbW3vT1sR5uP0oN".repeat(4);
const PRIVATE_KEY = "-----BEGIN RSA " + "PRIVATE KEY-----\n" + PRIVATE_KEY_BODY + "\n" +
  "-----END RSA " + "PRIVATE KEY-----";
const BEARER_TOKEN = "eyJhbGciOiJIUzI1NiJ9" + ".eyJzdWIiOiIxMjM0In0.Qm9ndXNTaWduYXR1cmU";
const CREDENTIAL = "s3cr3t-" + "Value-42";

const WHERE = 'journal event "File doc.md:3:1"';
const gate = createSecretGate();

const json = (value: JsonValue): string => JSON.stringify(value);

async function refusal(text: string): Promise<SecretDetectedError> {
  const error = await gate.check(text, WHERE).then(
    () => assert.fail(`expected a refusal of ${text}`),
    (error: unknown) => error,
  );
  assert.ok(error instanceof SecretDetectedError, `not a SecretDetectedError: ${error}`);
  return error;
}

async function assertRefused(text: string, ruleId: string, secret: string): Promise<void> {
  const error = await refusal(text);
  assert.equal(error.ruleId, ruleId);
  assert.equal(error.where, WHERE);
  assertNoLeak(error, secret);
}

function assertNoLeak(error: Error, secret: string): void {
  for (
    const rendering of [
      error.message,
      String(error),
      JSON.stringify(error),
      error.stack ?? "",
      JSON.stringify(error.cause) ?? "",
      Deno.inspect(error, { depth: 10 }),
    ]
  ) {
    assert.ok(!rendering.includes(secret), `the secret leaks into ${rendering}`);
  }
}

Deno.test("the gate refuses an AWS access key id", async () => {
  await assertRefused(
    json({ stdout: `aws_access_key_id = ${AWS_ACCESS_KEY_ID}\n` }),
    "aws-access-key-id",
    AWS_ACCESS_KEY_ID,
  );
});

Deno.test("the gate refuses a GitHub token", async () => {
  await assertRefused(json({ value: GITHUB_TOKEN }), "github-token", GITHUB_TOKEN);
});

Deno.test("the gate refuses a private key block, raw and JSON-escaped", async () => {
  await assertRefused(PRIVATE_KEY, "private-key", PRIVATE_KEY_BODY);
  await assertRefused(json({ content: PRIVATE_KEY }), "private-key", PRIVATE_KEY_BODY);
});

Deno.test("the gate refuses a Slack token", async () => {
  await assertRefused(json({ stdout: SLACK_TOKEN }), "slack-token", SLACK_TOKEN);
});

Deno.test("the gate refuses a bearer token, in a header and JSON-escaped", async () => {
  const header = `Authorization: Bearer ${BEARER_TOKEN}`;
  await assertRefused(header, "bearer-token", BEARER_TOKEN);
  await assertRefused(json({ request: { headers: [header] } }), "bearer-token", BEARER_TOKEN);
  await assertRefused(json({ stdout: `curl -H "${header}"\n` }), "bearer-token", BEARER_TOKEN);
  await assertRefused(`> bearer\t${BEARER_TOKEN}`, "bearer-token", BEARER_TOKEN);
});

Deno.test("the gate refuses a value under each credential name", async () => {
  const names = [
    "password",
    "passwd",
    "pwd",
    "secret",
    "client_secret",
    "token",
    "accessToken",
    "refresh-token",
    "API_KEY",
    "apiSecret",
    "private_key",
    "credential",
    "credentials",
    "Authorization",
    "auth",
    "session_token",
  ];
  for (const name of names) {
    await assertRefused(json({ [name]: CREDENTIAL }), "credential-field", CREDENTIAL);
    await assertRefused(json({ body: { [name]: CREDENTIAL } }), "credential-field", CREDENTIAL);
  }
});

Deno.test("JRN-23: a credential name split anywhere by _ or - is refused, in JSON and in lines", async () => {
  for (const name of ["pass_word", "P-W-D", "TO_KEN", "client-se_cret", "a-p-i_k-e-y", "Au_th"]) {
    await assertRefused(json({ [name]: CREDENTIAL }), "credential-field", CREDENTIAL);
    await assertRefused(`${name}=${CREDENTIAL}`, "credential-field", CREDENTIAL);
  }
});

Deno.test("the gate refuses credential fields in JSON nested in JSON strings", async () => {
  const stdout = json({ user: "ada", password: CREDENTIAL });
  await assertRefused(json({ exitCode: 0, stdout }), "credential-field", CREDENTIAL);
  await assertRefused(json({ event: json({ stdout }) }), "credential-field", CREDENTIAL);
});

Deno.test("JRN-23: a credential field first in an object nested in a JSON string is refused", async () => {
  // The nested object's first quote also closes the outer value (`"stdout":"{\"token\"`).
  for (const name of ["password", "api_key", "token"]) {
    const stdout = json({ [name]: CREDENTIAL, user: "ada" });
    await assertRefused(json({ stdout }), "credential-field", CREDENTIAL);
    await assertRefused(json({ event: json({ stdout }) }), "credential-field", CREDENTIAL);
  }
});

Deno.test("the gate refuses KEY=value and key: value lines with credential names", async () => {
  const lines = [
    `PASSWORD=${CREDENTIAL}`,
    `export API_KEY="${CREDENTIAL}"`,
    `mysql --user=ada --password=${CREDENTIAL} db`,
    `GET /v1/items?limit=5&token=${CREDENTIAL}`,
    `db:\n  password: ${CREDENTIAL}\n`,
    `secret: '${CREDENTIAL}'`,
    `Authorization: Basic ${btoa(`ada:${CREDENTIAL}`)}`,
    `DB_PASSWORD=${CREDENTIAL}`,
    `x-api-key: ${CREDENTIAL}`,
  ];
  for (const line of lines) {
    await assertRefused(line, "credential-field", CREDENTIAL);
    await assertRefused(json({ stdout: `${line}\n` }), "credential-field", CREDENTIAL);
  }
});

Deno.test("the gate accepts text without secrets", async () => {
  const texts = [
    "Hello, world. The build passed in 3.2s.",
    json({ exitCode: 0, stdout: "hello\n", stderr: "" }),
    json({ token: "***" }),
    json({ password: "********" }),
    json({ password: "xxxxxxxx" }),
    json({ password: "<your password>" }),
    json({ apiKey: "${API_KEY}" }),
    json({ secret: "changeme" }),
    json({ token: "{{ secrets.TOKEN }}" }),
    "PASSWORD=$DB_PASSWORD",
    json({ password: "hunter2" }),
    json({ pwd: "abc" }),
    json({ token: null, password: 12345678, auth: true }),
    json({ password: { type: "string", minLength: 8 } }),
    json({ nextPageToken: "CAEQAAabcdef", tokenizer: "cl100k_base" }),
    "Please enter your password: it must be at least 8 characters long.",
    "Password: required for login",
    json({ stdout: "Forgot your password? Reset it at https://example.com/reset\n" }),
    "The bearer of this letter is a friend. Bearer authentication-scheme-is-described here.",
    "Authorization: Bearer <token>",
    'curl -H "Authorization: Bearer ${TOKEN}"',
  ];
  for (const text of texts) await gate.check(text, WHERE);
});

Deno.test("a secretlint-disable comment does not switch the gate off", async () => {
  await assertRefused(
    `// secretlint-disable\n${GITHUB_TOKEN}\n// secretlint-enable`,
    "github-token",
    GITHUB_TOKEN,
  );
});

Deno.test("concurrent checks refuse only the text holding a secret", async () => {
  const texts = Array.from({ length: 20 }, (_, i) => json({ i, stdout: "ok\n" }));
  texts[7] = json({ stdout: GITHUB_TOKEN });
  const results = await Promise.allSettled(texts.map((text) => gate.check(text, WHERE)));
  assert.deepEqual(
    results.map((result) => result.status === "rejected"),
    texts.map((_, i) => i === 7),
  );
});

Deno.test("SecretDetectedError says what to do and names only the rule", () => {
  const error = new SecretDetectedError(WHERE, "aws-access-key-id");
  assert.equal(error.name, "SecretDetectedError");
  assert.equal(
    error.message,
    'Cannot persist journal event "File doc.md:3:1": it contains what looks like a secret ' +
      "(rule aws-access-key-id). Remove the secret from the document or its inputs, or pass " +
      "--no-secret-detection to turn the check off for one command.",
  );
  assert.equal(error.cause, undefined);
});

Deno.test("a failing scanner refuses with SecretScanError that does not echo it", async () => {
  const thrown = [
    new TypeError(`cannot read ${GITHUB_TOKEN}`),
    Object.assign(new Error("boom"), { name: `Bad ${GITHUB_TOKEN}` }),
    `raw string ${GITHUB_TOKEN}`,
  ];
  for (const value of thrown) {
    for (
      const scan of [() => Promise.reject(value), () => {
        throw value;
      }]
    ) {
      const failing = createSecretGateFromScan(scan);
      const error = await failing.check(GITHUB_TOKEN, WHERE).then(
        () => assert.fail("expected a refusal"),
        (error: unknown) => error,
      );
      assert.ok(error instanceof SecretScanError);
      assert.equal(error.name, "SecretScanError");
      assert.equal(error.where, WHERE);
      assert.match(
        error.message,
        /^Cannot persist journal event .*: the secret scan failed, so nothing was persisted\./,
      );
      assert.deepEqual(error.cause, { name: value instanceof TypeError ? "TypeError" : "unknown" });
      assertNoLeak(error, GITHUB_TOKEN);
    }
  }
});

Deno.test("the internal gate refuses with the rule its scan reports", async () => {
  const finding = createSecretGateFromScan(() =>
    Promise.resolve({ ruleId: "github-token", offset: 0 })
  );
  await assert.rejects(finding.check("x", WHERE), SecretDetectedError);
  const clean = createSecretGateFromScan(() => Promise.resolve(undefined));
  await clean.check("x", WHERE);
});

Deno.test("disabledSecretGate accepts a secret", async () => {
  await disabledSecretGate.check(json({ key: AWS_ACCESS_KEY_ID, token: GITHUB_TOKEN }), WHERE);
});

Deno.test("credential names ignore case, _ and -, and match specific suffixes only", () => {
  for (const name of ["Client-Secret", "ACCESS_TOKEN", "db_password", "SECRET_KEY", "x-api-key"]) {
    assert.ok(isCredentialName(name), name);
  }
  for (
    const name of ["nextPageToken", "k8sSecret", "oauth", "username", "tokens", "passwordHint"]
  ) {
    assert.ok(!isCredentialName(name), name);
  }
});

Deno.test("long runs of backslashes and quotes scan in bounded time", async () => {
  const started = performance.now();
  await gate.check("\\".repeat(100_000), WHERE);
  await gate.check('\\"'.repeat(50_000), WHERE);
  await gate.check("a=".repeat(50_000), WHERE);
  assert.ok(performance.now() - started < 2_000);
});

Deno.test("JRN-22: a where function learns the offset of the finding, or undefined when the scan failed", async () => {
  const text = `line one\nuse ${GITHUB_TOKEN} here`;
  const offsets: (number | undefined)[] = [];
  const error = await gate.check(text, (offset) => {
    offsets.push(offset);
    return `source doc.md at ${offset}`;
  }).then(() => assert.fail("expected a refusal"), (error: unknown) => error);
  assert.ok(error instanceof SecretDetectedError);
  assert.deepEqual(offsets, [text.indexOf(GITHUB_TOKEN)]);
  assert.equal(error.where, `source doc.md at ${text.indexOf(GITHUB_TOKEN)}`);
  const failing = createSecretGateFromScan(() => Promise.reject(new TypeError("boom")));
  await assert.rejects(
    failing.check(text, (offset) => `at ${offset}`),
    (error: unknown) => error instanceof SecretScanError && error.where === "at undefined",
  );
  assert.equal(gate.off, undefined);
  assert.equal(disabledSecretGate.off, true);
});
