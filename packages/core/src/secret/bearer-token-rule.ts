/**
 * A secretlint rule for HTTP bearer tokens (`Authorization: Bearer <token>`,
 * `bearer <token>`), which the recommended preset leaves to vendor-specific
 * rules. It reads raw and JSON-escaped text alike, and its report never
 * carries the token.
 *
 * @module
 */
import type { SecretLintRuleCreator } from "@secretlint/types";
import { isPlaceholder } from "./placeholder.ts";

/** The rule's secretlint id. */
export const BEARER_TOKEN_RULE_ID = "xmd/bearer-token";

// A token is ≥ 16 characters of the RFC 6750 token68 alphabet; `\/` is a
// JSON-escaped slash. The separator may be a JSON-escaped tab.
const BEARER_TOKEN = /\bbearer(?:[ \t]|\\t)+((?:[A-Za-z0-9._~+/=-]|\\\/){16,})/gi;

// Lower-case words joined by hyphens are prose ("bearer authentication-scheme"),
// not a token.
const HYPHENATED_WORDS = /^[a-z]+(?:-[a-z]+)*$/;

const messages = {
  BEARER_TOKEN: {
    en: () => "found a bearer token",
  },
};

/** Reports `bearer <token>` where the token is ≥ 16 characters and not a placeholder or prose. */
export const bearerTokenRule: SecretLintRuleCreator = {
  messages,
  meta: {
    id: BEARER_TOKEN_RULE_ID,
    recommended: true,
    type: "scanner",
    supportedContentTypes: ["text"],
  },
  create(context) {
    const t = context.createTranslator(messages);
    return {
      file(source) {
        for (const match of source.content.matchAll(BEARER_TOKEN)) {
          const token = match[1];
          if (isPlaceholder(token) || HYPHENATED_WORDS.test(token)) continue;
          const start = match.index + match[0].length - token.length;
          context.report({ message: t("BEARER_TOKEN"), range: [start, start + token.length] });
        }
      },
    };
  },
};
