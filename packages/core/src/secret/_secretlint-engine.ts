/**
 * The secretlint engine and the gate's rule configuration. Loaded on the
 * first scan only (see `secretlint-scan.ts`), so commands that persist
 * nothing never pay for loading secretlint.
 *
 * @module
 */
import { lintSource } from "@secretlint/core";
import { secretLintProfiler } from "@secretlint/profiler";
import { rules as recommendedRules } from "@secretlint/secretlint-rule-preset-recommend";
import type { SecretLintCoreConfig } from "@secretlint/types";
import { BEARER_TOKEN_RULE_ID, bearerTokenRule } from "./bearer-token-rule.ts";
import { CREDENTIAL_FIELD_RULE_ID, credentialFieldRule } from "./credential-field-rule.ts";

// `secretlint-disable` comments would let a document switch the gate off for
// its own text. The preset's rules are listed one by one because secretlint
// ignores `disabled` on a rule inside a preset.
const FILTER_COMMENTS_RULE_ID = "@secretlint/secretlint-rule-filter-comments";
const AWS_RULE_ID = "@secretlint/secretlint-rule-aws";

/** The gate's secretlint configuration. */
export const CONFIG: SecretLintCoreConfig = {
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

// The profiler is on by default and keeps every performance mark it makes
// (about 60 per scan, never cleared): a leak and a 10× slowdown for a gate
// that runs on each journal append.
secretLintProfiler.setEnabled(false);

export { lintSource };
