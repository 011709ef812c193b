/**
 * What `xmd workflow answer` delivers, in the form the user gave it, and to
 * which question: JSON as an argument, `-` (JSON on standard input, so a
 * job's input never has to be quoted into argv), `--file=<path>` (JSON in a
 * file), or `--text=<value>` (the raw string for a question whose schema's
 * type is string); the question by its suspension id (`<as>-<n>`, WF-19) or
 * by its `as` name.
 *
 * Invariants: nothing here writes, and the host still checks the run's
 * state, the schema and the secret gate before it stores anything. A name
 * resolves only to the question the run waits on now (a run waits on at most
 * one, WF-19). A refusal names the form and what to do, never the answer.
 *
 * @module
 */
import type { JsonValue } from "@xmd/core";
import { type PendingSuspension, RunStateError, type WorkflowHost } from "@xmd/workflow";
import type { CommandIo } from "./command-io.ts";
import { UsageError } from "./usage-error.ts";

/** Where the answer comes from. */
export type AnswerForm =
  | { kind: "json"; text: string }
  | { kind: "stdin" }
  | { kind: "file"; path: string }
  | { kind: "text"; value: string };

/** A suspension id as WF-19 makes it: the `as` name, `-`, the event's number. */
const SUSPENSION_ID = /^([A-Za-z_][A-Za-z0-9_]*)-[1-9][0-9]*$/;
/** An `as` name (MDX: `^[A-Za-z_][A-Za-z0-9_]*$`). */
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const FORMS = "as JSON, - (JSON on standard input), --file=<path> or --text=<value>";

/**
 * The form of the answer: the `<json>` argument (`-` for standard input),
 * `--file` or `--text`, exactly one of them.
 */
export function answerForm(
  json: string | undefined,
  file: string | undefined,
  text: string | undefined,
): AnswerForm {
  const given = [json, file, text].filter((value) => value !== undefined).length;
  if (given === 0) throw new UsageError(`Missing the answer: give it ${FORMS}`);
  if (given > 1) throw new UsageError(`Give the answer once: ${FORMS}, not two of them`);
  if (file !== undefined) {
    if (file === "") throw new UsageError("Option --file needs a path: write --file=<path>");
    return { kind: "file", path: file };
  }
  if (text !== undefined) return { kind: "text", value: text };
  return json === "-" ? { kind: "stdin" } : { kind: "json", text: json! };
}

/** The answer's value: parsed JSON, or the raw string of `--text`. Refusals never quote it. */
export async function readAnswer(form: AnswerForm, io: CommandIo): Promise<JsonValue> {
  switch (form.kind) {
    case "text":
      return form.value;
    case "json":
      return parseAnswer(
        form.text,
        `Cannot read the answer: it is not valid JSON. Quote it for the shell, e.g. '{"ok":true}' or '"text"'`,
      );
    case "stdin": {
      if (!io.readStdin) throw new UsageError("Cannot read the answer: there is no standard input");
      const text = decode(await io.readStdin(), "standard input");
      return parseAnswer(text, notJson("standard input"));
    }
    case "file": {
      let bytes: Uint8Array;
      try {
        bytes = await Deno.readFile(io.resolve(form.path));
      } catch (error) {
        throw new UsageError(
          `Cannot read the answer from "${form.path}": ${unreadable(error)}`,
          { cause: error },
        );
      }
      return parseAnswer(decode(bytes, `"${form.path}"`), notJson(`"${form.path}"`));
    }
  }
}

/**
 * The suspension id `given` names in run `id`: itself when it has the form
 * of one, else the question the run waits on when its `as` name is `given`.
 * Only a name (or `--text`, which needs the question's schema) reads the run.
 */
export async function resolveQuestion(
  host: WorkflowHost,
  id: string,
  given: string,
  form: AnswerForm,
): Promise<string> {
  const byName = !SUSPENSION_ID.test(given) && NAME.test(given);
  if (!byName && form.kind !== "text") return given;
  const { record, pendingSuspension } = await host.inspect(id);
  let suspensionId = given;
  if (byName) {
    // A run without a question is refused by the host, as for a suspension id.
    if (pendingSuspension === null) return given;
    if (nameOf(pendingSuspension) !== given) {
      // Worded as the host refuses a suspension id it does not wait for.
      throw new RunStateError(
        `Cannot answer "${given}": run "${record.id}" waits for ${pendingSuspension.suspensionId}`,
      );
    }
    suspensionId = pendingSuspension.suspensionId;
  }
  if (form.kind === "text" && pendingSuspension?.suspensionId === suspensionId) {
    const type = (pendingSuspension.schema as { type?: unknown } | null)?.type;
    const string = type === "string" || (Array.isArray(type) && type.includes("string"));
    if (!string) {
      throw new UsageError(
        `Cannot use --text for ${suspensionId}: its schema's type is ${
          type === undefined ? "not declared" : JSON.stringify(type)
        }, not "string". Give the answer as JSON instead (as an argument, - or --file)`,
      );
    }
  }
  return suspensionId;
}

/** The `as` name of a pending question, from its suspension id. */
function nameOf(pending: PendingSuspension): string {
  return pending.suspensionId.replace(/-[0-9]+$/, "");
}

function parseAnswer(text: string, refusal: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    throw new UsageError(refusal);
  }
}

function notJson(where: string): string {
  return `Cannot read the answer from ${where}: it is not valid JSON. Write JSON such as {"ok":true} or "text", or give a string question's answer with --text=<value>`;
}

/** UTF-8 text, without a leading byte-order mark (as documents are read, MDX-66). */
function decode(bytes: Uint8Array, where: string): string {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new UsageError(`Cannot read the answer from ${where}: it is not UTF-8 text`);
  }
  if (text.trim() === "") {
    throw new UsageError(`Cannot read the answer from ${where}: it is empty`);
  }
  return text.startsWith("\uFEFF") ? text.slice(1) : text;
}

function unreadable(error: unknown): string {
  if (error instanceof Deno.errors.NotFound) return "no such file";
  if (error instanceof Deno.errors.IsADirectory) return "it is a directory";
  if (error instanceof Deno.errors.PermissionDenied) return "permission denied";
  return error instanceof Error ? error.message : String(error);
}
