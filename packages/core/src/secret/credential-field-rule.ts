/**
 * A secretlint rule for values stored under credential names — `"password":
 * "…"` in JSON, `PASSWORD=…` and `password: …` in text — whatever their
 * format, which vendor-specific rules cannot know. It reads raw JSON and JSON
 * nested in JSON strings (`{\"token\":\"…\"}` in a command's stdout) alike,
 * and its report never carries the value.
 *
 * @module
 */
import type { SecretLintRuleCreator } from "@secretlint/types";
import { isPlaceholder } from "./placeholder.ts";

/** The rule's secretlint id. */
export const CREDENTIAL_FIELD_RULE_ID = "xmd/credential-field";

/** Shorter values are too weak to be credentials and too common to refuse. */
const MIN_VALUE_LENGTH = 8;

/** Credential names, lower-cased without `_` and `-`; a key with exactly this name is checked. */
const CREDENTIAL_NAMES = new Set([
  "password",
  "passwd",
  "pwd",
  "secret",
  "clientsecret",
  "token",
  "accesstoken",
  "refreshtoken",
  "apikey",
  "apisecret",
  "privatekey",
  "credential",
  "credentials",
  "authorization",
  "auth",
  "sessiontoken",
]);

// Names this specific also count as a suffix, so prefixed keys such as
// `DB_PASSWORD`, `x-api-key` or Django's `SECRET_KEY` are caught. Generic
// names (`token`, `secret`, `auth`) do not, since `nextPageToken` or
// `k8sSecret` name no credential.
const CREDENTIAL_SUFFIXES = [
  "password",
  "passwd",
  "secretkey",
  "clientsecret",
  "accesstoken",
  "refreshtoken",
  "sessiontoken",
  "apikey",
  "apisecret",
  "privatekey",
];

// A quote at any JSON escaping depth (`"`, `\"`, `\\\"`). The lookbehind starts
// a match only at the first backslash of a run, which keeps long runs of
// backslashes linear.
const QUOTE = String.raw`(?<!\\)\\*"`;
const KEY = String.raw`([A-Za-z0-9_-]{1,64})`;

/**
 * `"key": "value"` in JSON, at any escaping depth. The value stops before any
 * escaped quote or backslash. Its closing quote is not consumed: it may be
 * the opening quote of the next key (`"stdout":"{\"token\":…` ends the
 * value `{` where the nested object's first key starts).
 */
const JSON_FIELD = new RegExp(
  String.raw`${QUOTE}${KEY}\\*"\s*:\s*\\*"((?:[^"\\]|\\(?![\\"]))*)(?=\\*")`,
  "dg",
);

// Where a text line starts or ends: a real line break, a JSON-escaped one, or
// the quote of the JSON string holding the text.
const LINE_START = String.raw`(?:^|\\[nr]|${QUOTE})`;
const LINE_END = String.raw`(?=$|\\[nr]|\\*")`;

/**
 * `key: value` as a whole line (YAML, HTTP headers), optionally after a list
 * dash and before an auth scheme. Requiring the line to end after one token
 * keeps prose such as "Password: required for login" out.
 */
const COLON_LINE = new RegExp(
  String.raw`${LINE_START}[ \t]*(?:-[ \t]+)?${KEY}[ \t]*:[ \t]*` +
    String
      .raw`(?:(?:basic|bearer|digest|token)[ \t]+)?(?:\\*["'])?([^\s"'\\]+)(?:\\*["'])?[ \t]*${LINE_END}`,
  "dgim",
);

/** `KEY=value` with no space around `=`: env files, command-line flags, URL queries. */
const EQUALS_PAIR = new RegExp(
  String.raw`(?:^|[\s"'?&;]|\\[nrt])${KEY}=(?:\\*["'])?([^\s"'\\&;,]+)`,
  "dgm",
);

/**
 * Every credential name, and so every key `isCredentialName` accepts, holds
 * one of these words once `_` and `-` are dropped; in the text they may be
 * split by `_` and `-`. A text holding none of them holds no credential name,
 * so the rule's patterns need not run on it: most texts the gate scans (file
 * contents, events of `<File>` writes) are skipped at the cost of one search.
 */
const CREDENTIAL_WORDS = ["pwd", "passw", "secret", "token", "key", "credential", "auth"];
const ANY_CREDENTIAL_WORD = new RegExp(
  CREDENTIAL_WORDS.map((word) => [...word].join("[_-]*")).join("|"),
  "i",
);

const messages = {
  CREDENTIAL_FIELD: {
    en: () => "found a value stored under a credential name",
  },
};

/** Reports a value of ≥ 8 characters, not a placeholder, stored under a credential name. */
export const credentialFieldRule: SecretLintRuleCreator = {
  messages,
  meta: {
    id: CREDENTIAL_FIELD_RULE_ID,
    recommended: true,
    type: "scanner",
    supportedContentTypes: ["text"],
  },
  create(context) {
    const t = context.createTranslator(messages);
    return {
      file(source) {
        if (!ANY_CREDENTIAL_WORD.test(source.content)) return;
        for (const pattern of [JSON_FIELD, COLON_LINE, EQUALS_PAIR]) {
          for (const match of source.content.matchAll(pattern)) {
            const [, key, value] = match;
            const range = match.indices?.[2];
            if (range === undefined || !isCredentialName(key) || !isCredentialValue(value)) {
              continue;
            }
            context.report({ message: t("CREDENTIAL_FIELD"), range: [range[0], range[1]] });
          }
        }
      },
    };
  },
};

/** Whether a key names a credential, ignoring case, `_` and `-`. */
export function isCredentialName(key: string): boolean {
  const name = key.toLowerCase().replaceAll(/[_-]/g, "");
  return CREDENTIAL_NAMES.has(name) || CREDENTIAL_SUFFIXES.some((suffix) => name.endsWith(suffix));
}

function isCredentialValue(value: string): boolean {
  return value.length >= MIN_VALUE_LENGTH && !isPlaceholder(value);
}
