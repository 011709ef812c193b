/**
 * A refusal never echoes what the secret gate would refuse. Before `xmd`
 * prints a refusal, every command-line argument it quotes (whole, or the
 * value after its `=`) passes the gate, and one the gate refuses is replaced
 * by what it is and why it is not shown: a token typed as a run id or a
 * suspension id, or as an option the command does not take, stays off the
 * terminal and out of logs of stderr.
 *
 * Invariant: only a refusal that quotes an argument long enough to hold a
 * secret loads the gate; every other message is printed as it is.
 *
 * @module
 */
import { createSecretGate, SecretDetectedError, type SecretGate } from "@xmd/core";

/** Shorter arguments hold no secret any rule finds (a credential value has at least 8 characters). */
const SHORTEST = 8;

/** `message` with every argument of `args` it quotes that the gate refuses replaced. */
export async function withoutTypedSecrets(
  message: string,
  args: readonly string[],
  gate: SecretGate = createSecretGate(),
): Promise<string> {
  const candidates = new Set<string>();
  for (const arg of args) {
    candidates.add(arg);
    const equals = arg.indexOf("=");
    if (equals >= 0) candidates.add(arg.slice(equals + 1));
  }
  // Longest first: a whole argument is replaced before the value inside it.
  for (const candidate of [...candidates].sort((a, b) => b.length - a.length)) {
    if (candidate.length < SHORTEST || !message.includes(candidate)) continue;
    try {
      await gate.check(candidate, "a command-line argument");
    } catch (error) {
      // A failed scan hides the argument too: the gate fails closed.
      const rule = error instanceof SecretDetectedError ? ` (rule ${error.ruleId})` : "";
      message = message.replaceAll(
        candidate,
        `<an argument that looks like a secret${rule}, not shown>`,
      );
    }
  }
  return message;
}
