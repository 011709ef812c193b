/**
 * The secretlint scan behind {@linkcode createSecretGate}: the recommended
 * preset plus this folder's bearer-token and credential-field rules, set up
 * once and run on each text, in bounded pieces (`pieces.ts`) however long
 * the text. It reports a finding only as a rule id derived
 * from secretlint's message id and the index where it starts: the matched
 * value and the rule's message (which quotes it) are dropped here. A piece
 * the prefilter (`prefilter.ts`) shows no rule can report on is accepted
 * without running secretlint, and secretlint is loaded only for the first
 * piece that needs it.
 *
 * @module
 */
import { pieces } from "./pieces.ts";
import { mayHoldSecret } from "./prefilter.ts";
import type { SecretScan } from "./secret-gate-internal.ts";

let engine: Promise<typeof import("./_secretlint-engine.ts")> | undefined;

/** Creates the scan: the rule configuration is built once and shared by every call. */
export function createSecretlintScan(): SecretScan {
  return async (text) => {
    for (const piece of pieces(text)) {
      if (!mayHoldSecret(piece.text)) continue;
      engine ??= import("./_secretlint-engine.ts");
      const { CONFIG, lintSource } = await engine;
      const result = await lintSource({
        // No extension: some rules read the named file from disk for `.p12`.
        source: { content: piece.text, filePath: "secret-gate", ext: "", contentType: "text" },
        options: { config: CONFIG, maskSecrets: true, noPhysicFilePath: true },
      });
      const first = result.messages[0];
      if (first !== undefined) {
        return { ruleId: ruleIdOf(first.messageId), offset: piece.offset + first.range[0] };
      }
    }
    return undefined;
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
