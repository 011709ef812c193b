/**
 * The `<Elicit>` questions of `xmd run`: answered by `--answer name=<json>`
 * flags first, then on the terminal, and refused when neither is possible.
 *
 * Invariants: a question is never left waiting on input that cannot come —
 * with no supplied answer and no terminal, asking fails at once and says
 * which flag to pass. A typed answer is returned only once it satisfies the
 * schema; anything else is asked again, so a slip of the keyboard never ends
 * a run. Messages name the binding but never echo an answer.
 *
 * @module
 */
import { XmdError } from "../errors/xmd-error.ts";
import type { AnswerProblem } from "../engine/answer-schema.ts";
import { formatAnswerProblems } from "../engine/answer-schema.ts";
import type { ElicitProvider, ElicitRequest } from "../engine/providers.ts";
import type { JsonObject, JsonValue } from "../json/json-value.ts";
import {
  answerForm,
  type FieldForm,
  parseJson,
  promptOf,
  readLine,
  type ValueForm,
} from "./_answer-form.ts";
import type { TerminalLine } from "./terminal-line.ts";

/** An `<Elicit>` question that cannot be answered: a malformed `--answer`, no terminal, or closed input. */
export class ElicitAnswerError extends XmdError {
  /** The class name, which journals record. */
  override name = "ElicitAnswerError";
  /** Its stable code. */
  readonly code = "answer.unavailable";
  /** The binding name (`as`) of the question. */
  readonly binding: string;

  /** The question bound as `binding` cannot be answered, as `message` says. */
  constructor(binding: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.binding = binding;
  }
}

/** How a {@linkcode TerminalElicit} gets its answers. */
export interface TerminalElicitOptions {
  /** Binding name → raw JSON text, from `--answer name=<json>`. */
  answers: Map<string, string>;
  /** Whether stdin is a terminal a person can type into. */
  interactive: boolean;
  /** Where typed answers come from; `Deno.stdin.readable` when omitted. */
  stdin?: ReadableStream<Uint8Array>;
  /** Where the question and prompt are written. */
  stderr: (text: string) => void;
  /**
   * Where the terminal's cursor is, when the run's output is followed
   * ({@linkcode TerminalLine}): a question then starts on a new line after
   * output that ended mid-line. Without it the cursor is taken to be at the
   * start of a line.
   */
  line?: TerminalLine;
}

/**
 * An {@linkcode ElicitProvider} for a terminal.
 *
 * A supplied answer must be JSON. On the terminal the question is written on
 * a line of its own, then a prompt shaped by the schema: `(y/n)` for a
 * boolean, a numbered list for an `enum` (or `const`), bare text for a string,
 * one prompt per property for an object with `properties` (where an empty
 * line leaves an optional property out, and a JSON object typed at the first
 * prompt answers the whole question), and JSON for anything else. `?` shows
 * the schema. A line that means nothing under the prompt, or an answer that
 * fails the schema, is explained and asked again.
 *
 * @example Answering from a flag
 * ```ts
 * import assert from "node:assert/strict";
 * import { TerminalElicit } from "./terminal-elicit.ts";
 * const elicit = new TerminalElicit({
 *   answers: new Map([["approval", '{"ok":true}']]),
 *   interactive: false,
 *   stderr: () => {},
 * });
 * const answer = await elicit.ask({
 *   name: "approval",
 *   question: "Publish?",
 *   schema: { type: "object" },
 *   problems: () => [],
 *   signal: new AbortController().signal,
 * });
 * assert.deepEqual(answer, { ok: true });
 * ```
 */
export class TerminalElicit implements ElicitProvider {
  readonly #answers: Map<string, string>;
  readonly #interactive: boolean;
  readonly #stdin: ReadableStream<Uint8Array> | undefined;
  readonly #stderr: (text: string) => void;
  readonly #line: TerminalLine | undefined;
  #lines: LineReader | undefined;

  /** Answers from `options.answers`, else from `options.stdin` when `options.interactive`. */
  constructor(options: TerminalElicitOptions) {
    this.#answers = options.answers;
    this.#interactive = options.interactive;
    this.#stdin = options.stdin;
    this.#stderr = options.stderr;
    this.#line = options.line;
  }

  /**
   * Returns the answer to one question. Rejects with an
   * {@linkcode ElicitAnswerError} for a supplied answer that is not JSON, when
   * there is neither a supplied answer nor a terminal, or when input ends
   * before an answer is typed; rejects with the signal's reason on abort.
   */
  async ask(request: ElicitRequest): Promise<JsonValue> {
    const { name, question, signal } = request;
    signal.throwIfAborted();
    const supplied = this.#answers.get(name);
    if (supplied !== undefined) {
      const answer = parseJson(supplied);
      if (answer === undefined) {
        throw new ElicitAnswerError(name, `Invalid --answer for "${name}": not valid JSON`);
      }
      return answer;
    }
    if (!this.#interactive) {
      throw new ElicitAnswerError(
        name,
        `Cannot ask "${name}": stdin is not a terminal. Pass --answer ${name}=<json>.`,
      );
    }
    this.#lines ??= new LineReader(this.#stdin ?? Deno.stdin.readable);
    const text = question.trim() === "" ? `Answer "${name}":` : question.trimEnd();
    this.#stderr(`${this.#line && !this.#line.atLineStart ? "\n" : ""}${text}\n`);
    const form = answerForm(request.schema);
    return form.kind === "fields"
      ? await this.#fields(form.fields, request)
      : await this.#value(form, "", request);
  }

  /** Asks for one value until it satisfies the schema. */
  async #value(form: ValueForm, indent: string, request: ElicitRequest): Promise<JsonValue> {
    for (;;) {
      const reading = await this.#read(form, indent, "", request);
      // Only a field can be left out or answered as a whole object.
      if (reading.kind !== "value") continue;
      const problems = request.problems(reading.value);
      if (problems.length === 0) return reading.value;
      this.#stderr(mismatch(problems));
    }
  }

  /**
   * Asks for an object property by property; after a mismatch, asks again
   * for the properties it names (all of them when it names none).
   */
  async #fields(fields: FieldForm[], request: ElicitRequest): Promise<JsonValue> {
    const answer: JsonObject = {};
    let asking = fields;
    for (;;) {
      let whole: JsonValue | undefined;
      for (const [index, field] of asking.entries()) {
        if (field.description) this.#stderr(`  ${field.description}\n`);
        const wholeAllowed = index === 0 && asking === fields;
        const reading = await this.#read(field.form, "  ", field.name, request, {
          optional: !field.required,
          whole: wholeAllowed,
        });
        if (reading.kind === "whole") {
          whole = reading.value;
          break;
        }
        if (reading.kind === "skip") delete answer[field.name];
        else answer[field.name] = reading.value;
      }
      const candidate = whole ?? answer;
      const problems = request.problems(candidate);
      if (problems.length === 0) return candidate;
      this.#stderr(mismatch(problems));
      const named = new Set(problems.map((problem) => fieldOf(problem)));
      const again = fields.filter((field) => named.has(field.name));
      asking = whole !== undefined || again.length !== named.size ? fields : again;
    }
  }

  /**
   * Prompts once per line until the line means something under `form`:
   * `?` shows the schema, a meaningless line is explained. For a field, an
   * empty optional line means "left out" and a JSON object at the first
   * field may answer the whole question.
   */
  async #read(
    form: ValueForm,
    indent: string,
    label: string,
    request: ElicitRequest,
    field?: { optional: boolean; whole: boolean },
  ): Promise<Reading> {
    const { hint, lines } = promptOf(form);
    const hints = [hint, ...(field?.optional ? ["optional, Enter skips"] : [])]
      .filter((text) => text !== "");
    const words = [label, hints.length ? `(${hints.join(", ")})` : ""].filter((word) => word);
    const prompt = `${indent}${[...words, "> "].join(" ")}`;
    const choices = lines.map((line) => `${indent}  ${line}\n`).join("");
    for (;;) {
      this.#stderr(choices + prompt);
      const line = (await this.#next(request)).trim();
      if (line === "?") {
        this.#stderr(
          `${indent}The answer must match this JSON Schema: ${JSON.stringify(request.schema)}\n`,
        );
        continue;
      }
      if (field?.optional && line === "") return { kind: "skip" };
      if (field?.whole && line.startsWith("{")) {
        const whole = parseJson(line);
        if (whole !== null && typeof whole === "object" && !Array.isArray(whole)) {
          return { kind: "whole", value: whole };
        }
      }
      const reading = readLine(form, line);
      if ("value" in reading) return { kind: "value", value: reading.value };
      this.#stderr(`${indent}${reading.retry}\n`);
    }
  }

  /** The next typed line; rejects when input has ended. */
  async #next(request: ElicitRequest): Promise<string> {
    const line = await this.#lines!.read(request.signal);
    if (line === undefined) {
      throw new ElicitAnswerError(
        request.name,
        `Cannot ask "${request.name}": stdin ended before an answer was typed. Pass --answer ${request.name}=<json>.`,
      );
    }
    this.#line?.typed();
    return line;
  }
}

/** What a prompt read: a value, a left-out optional field, or a whole object typed at a field. */
type Reading =
  | { kind: "value"; value: JsonValue }
  | { kind: "skip" }
  | { kind: "whole"; value: JsonValue };

/** What to say when an answer fails its schema: the problems, never the answer. */
function mismatch(problems: readonly AnswerProblem[]): string {
  return `That answer does not match the schema: ${formatAnswerProblems(problems)}. ` +
    "Try again (? shows the schema).\n";
}

/** The top-level property a problem is about, or `""` for the whole answer. */
function fieldOf(problem: AnswerProblem): string {
  const [, first] = problem.path.split("/");
  return first === undefined ? "" : first.replaceAll("~1", "/").replaceAll("~0", "~");
}

/**
 * Splits a byte stream into lines, across any number of questions.
 *
 * An aborted read leaves its pending chunk request in place for the next
 * read, so no typed input is lost to an abort.
 */
class LineReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  #buffer = "";
  #ended = false;
  #pending: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;

  constructor(stream: ReadableStream<Uint8Array>) {
    this.#reader = stream.getReader();
  }

  /** The next line without its line ending, or `undefined` once the input has ended. */
  async read(signal: AbortSignal): Promise<string | undefined> {
    for (;;) {
      const newline = this.#buffer.indexOf("\n");
      if (newline >= 0) {
        const line = this.#buffer.slice(0, newline);
        this.#buffer = this.#buffer.slice(newline + 1);
        return line.endsWith("\r") ? line.slice(0, -1) : line;
      }
      if (this.#ended) {
        const rest = this.#buffer;
        this.#buffer = "";
        return rest === "" ? undefined : rest;
      }
      this.#pending ??= this.#reader.read();
      const result = await untilAborted(this.#pending, signal);
      this.#pending = undefined;
      if (result.done) {
        this.#ended = true;
        this.#buffer += this.#decoder.decode();
      } else {
        this.#buffer += this.#decoder.decode(result.value, { stream: true });
      }
    }
  }
}

/** Settles like `promise`, or rejects with the signal's reason as soon as it aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  signal.throwIfAborted();
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
