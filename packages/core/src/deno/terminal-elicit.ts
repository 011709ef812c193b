/**
 * The `<Elicit>` questions of `xmd run`: answered by `--answer name=<json>`
 * flags first, then on the terminal, and refused when neither is possible.
 *
 * Invariant: a question is never left waiting on input that cannot come — with
 * no supplied answer and no terminal, asking fails at once and says which flag
 * to pass. Error messages name the binding but never echo an answer.
 * Validating the answer against the schema is the engine's job, not this
 * module's.
 *
 * @module
 */
import type { ElicitProvider, ElicitRequest } from "../engine/providers.ts";
import type { JsonValue } from "../json/json-value.ts";

/** An `<Elicit>` question that cannot be answered: a malformed `--answer`, no terminal, or closed input. */
export class ElicitAnswerError extends Error {
  /** The class name, by which the CLI and journals recognize the error. */
  override name = "ElicitAnswerError";
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
}

/**
 * An {@linkcode ElicitProvider} for a terminal.
 *
 * A supplied answer must be JSON. A typed line is read as JSON, with two
 * conveniences: when the schema's `type` is (or includes) `"string"`, a line
 * that is not a JSON string is taken verbatim (trimmed), so `1.4.0` needs no
 * quotes; when it is (or includes) `"boolean"`, `y`, `yes`, `n` and `no` are
 * accepted in any case. A line that is not JSON is asked for again.
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
  #lines: LineReader | undefined;

  /** Answers from `options.answers`, else from `options.stdin` when `options.interactive`. */
  constructor(options: TerminalElicitOptions) {
    this.#answers = options.answers;
    this.#interactive = options.interactive;
    this.#stdin = options.stdin;
    this.#stderr = options.stderr;
  }

  /**
   * Returns the answer to one question. Rejects with an
   * {@linkcode ElicitAnswerError} for a supplied answer that is not JSON, when
   * there is neither a supplied answer nor a terminal, or when input ends
   * before a line is typed; rejects with the signal's reason on abort.
   */
  async ask(request: ElicitRequest): Promise<JsonValue> {
    const { name, question, schema, signal } = request;
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
    this.#stderr(`${question.trimEnd()}\n${JSON.stringify(schema)}\n> `);
    for (;;) {
      const line = await this.#lines.read(signal);
      if (line === undefined) {
        throw new ElicitAnswerError(
          name,
          `Cannot ask "${name}": stdin ended before an answer was typed. Pass --answer ${name}=<json>.`,
        );
      }
      const answer = interpret(line.trim(), schema);
      if (answer !== undefined) return answer;
      this.#stderr("That is not JSON; type a JSON value.\n> ");
    }
  }
}

/** The JSON value of `text`, or `undefined` when it is not JSON. */
function parseJson(text: string): JsonValue | undefined {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Whether `schema` declares `type` among its types. */
function declaresType(schema: JsonValue, type: string): boolean {
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return false;
  const declared = schema.type;
  return declared === type || (Array.isArray(declared) && declared.includes(type));
}

/** The answer a typed line means under `schema`, or `undefined` when it means nothing. */
function interpret(line: string, schema: JsonValue): JsonValue | undefined {
  const parsed = parseJson(line);
  if (declaresType(schema, "string")) return typeof parsed === "string" ? parsed : line;
  if (declaresType(schema, "boolean")) {
    if (/^y(es)?$/i.test(line)) return true;
    if (/^no?$/i.test(line)) return false;
  }
  return parsed;
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
