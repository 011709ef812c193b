/**
 * The secret gate on what `start` retains: the run id, the target, every
 * source (its label and its text, the root document and each component) and
 * every prop value pass the gate before anything is created, so a refused
 * start leaves no run, no file and no byte of the secret behind.
 *
 * Invariant: a refusal names the rule and where (a source position, a prop's
 * declared name), never the value; a label is named only after it passed.
 *
 * @module
 */
import type { JsonObject, Program, SecretGate } from "@xmd/core";

/** What a start retains. */
export interface StartValues {
  /** The run id. */
  id: string;
  /** The loaded program: its sources are retained. */
  program: Program;
  /** `Section/Sub`, if any. */
  target?: string;
  /** The resolved root props, retained in the run record. */
  props: JsonObject;
}

/** Refuses with `SecretDetectedError` (or `SecretScanError`) when a retained value holds a secret. */
export async function gateStart(gate: SecretGate, values: StartValues): Promise<void> {
  if (gate.off) return;
  await gate.check(values.id, "the run id");
  if (values.target !== undefined) await gate.check(values.target, "the target");
  for (const [label, text] of values.program.sources) {
    await gate.check(label, "the file name of a source");
    await gate.check(
      text,
      (offset) =>
        offset === undefined ? `source ${label}` : `source ${label}:${position(text, offset)}`,
    );
  }
  // Each prop with its name, so a value is also refused for the credential name it is given.
  for (const [name, value] of Object.entries(values.props)) {
    await gate.check(JSON.stringify({ [name]: value }), `prop "${name}"`);
  }
}

/** `line:column` (1-based) of a UTF-16 index. */
function position(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return `${line}:${offset - before.lastIndexOf("\n")}`;
}
