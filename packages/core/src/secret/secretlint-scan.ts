/**
 * The secretlint scan behind {@linkcode createSecretGate}: the recommended
 * preset plus this folder's bearer-token and credential-field rules, set up
 * once and run on each text. It reports a finding only as a rule id derived
 * from secretlint's message id: the matched value and the rule's message
 * (which quotes it) are dropped here.
 *
 * @module
 */
import { lintSource } from "@secretlint/core";
import { secretLintProfiler } from "@secretlint/profiler";
import { rules as recommendedRules } from "@secretlint/secretlint-rule-preset-recommend";
import type { SecretLintCoreConfig } from "@secretlint/types";
import { BEARER_TOKEN_RULE_ID, bearerTokenRule } from "./bearer-token-rule.ts";
import { CREDENTIAL_FIELD_RULE_ID, credentialFieldRule } from "./credential-field-rule.ts";
import type { SecretScan } from "./secret-gate-internal.ts";

// `secretlint-disable` comments would let a document switch the gate off for
// its own text. The preset's rules are listed one by one because secretlint
// ignores `disabled` on a rule inside a preset.
const FILTER_COMMENTS_RULE_ID = "@secretlint/secretlint-rule-filter-comments";
const AWS_RULE_ID = "@secretlint/secretlint-rule-aws";

const CONFIG: SecretLintCoreConfig = {
  rules: [
    ...recommendedRules
      .filter((rule) => rule.meta.id !== FILTER_COMMENTS_RULE_ID)
      .map((rule) =>
        rule.meta.id === AWS_RULE_ID
          // Access key ids are off by default; an id alone is worth refusing,
          // an account id is not a secret.
          ? {
            id: rule.meta.id,
            rule,
            options: { enableIDScanRule: true },
            allowMessageIds: ["AWSAccountID"],
          }
          : { id: rule.meta.id, rule }
      ),
    { id: BEARER_TOKEN_RULE_ID, rule: bearerTokenRule },
    { id: CREDENTIAL_FIELD_RULE_ID, rule: credentialFieldRule },
  ],
};

/** Creates the scan: the rule configuration is built once and shared by every call. */
export function createSecretlintScan(): SecretScan {
  // The profiler is on by default and keeps every performance mark it makes
  // (about 60 per scan, never cleared): a leak and a 10× slowdown for a gate
  // that runs on each journal append.
  secretLintProfiler.setEnabled(false);
  return async (text) => {
    const result = await lintSource({
      // No extension: some rules read the named file from disk for `.p12`.
      source: { content: text, filePath: "secret-gate", ext: "", contentType: "text" },
      options: { config: CONFIG, maskSecrets: true, noPhysicFilePath: true },
    });
    const first = result.messages[0];
    return first === undefined ? undefined : ruleIdOf(first.messageId);
  };
}

/** `AWSAccessKeyID` → `aws-access-key-id`, `GITHUB_TOKEN` → `github-token`. */
function ruleIdOf(messageId: string): string {
  return messageId
    .replaceAll(/([a-z0-9])([A-Z])/g, "$1-$2")
    .replaceAll(/([A-Z]+)([A-Z][a-z])/g, "$1-$2")
    .replaceAll(/[_-]+/g, "-")
    .toLowerCase();
}
