/**
 * Expansion: renders a loaded program, sending every effect through the
 * journal and the providers.
 *
 * Invariants:
 * - The engine is pure apart from its providers and journal: expressions
 *   and rendering are deterministic, so replaying recorded results
 *   reproduces the same output and the same effect sequence.
 * - Every effect's description name is `<Element> <file>:<line>:<column>`,
 *   except the first effect of every run, `props <root file>`, which holds the
 *   SHA-256 of the root props (never their values) so replay with other props diverges.
 * - Component invocations run as child coroutines `parent.N`, numbered in
 *   the order they start; each ends with a Close.
 * - A checked failure is recorded in the root Close and replays the same;
 *   divergence, persistence and secret-gate refusals are not (fail-stop).
 *
 * @module
 */
import { DocumentError } from "../document/document-error.ts";
import type { Program } from "../document/load-program.ts";
import type { ParsedDocument } from "../document/parse-document.ts";
import { formatPosition, type SourcePosition } from "../document/source-position.ts";
import type { AttributeValue, Element, ExecCode, Part } from "../document/tree.ts";
import type { CompiledExpression } from "../expression/mod.ts";
import type { JsonObject, JsonValue } from "../json/json-value.ts";
import type { Description, ErrorRecord } from "../journal/events.ts";
import type { Journal } from "../journal/journal.ts";
import { compileGlob, GlobPatternError } from "../glob/mod.ts";
import { sha256Hex } from "../hash/sha256.ts";
import { canonicalJson } from "../json/canonical-json.ts";
import { validateComponentProps } from "../props/mod.ts";
import { compileAnswerSchema, refuseAnswer } from "./answer-schema.ts";
import { EffectRefusal } from "./effect-refusal.ts";
import { FileSystemError } from "./file-system-error.ts";
import { joinLogical } from "./logical-path.ts";
import { pathLengthProblem } from "./path-limits.ts";
import { propsEvent } from "./props-event.ts";
import type { Providers } from "./providers.ts";
import { CaptureWriter, MAX_CAPTURED_LENGTH, RenderWriter } from "./render-writer.ts";
import { CancelledError, EffectFailure, SuspendedError } from "./run-failures.ts";
import { BindingScope } from "./scope.ts";

/** What a run needs. */
export interface RunOptions {
  /** The loaded program. */
  program: Program;
  /** Resolved, validated props of the root document. */
  props: JsonObject;
  /** Where effects go. */
  providers: Providers;
  /** Replays recorded effects, records live ones. */
  journal: Journal;
  /** Receives the rendered document as it is produced. */
  stdout(text: string): void;
  /** Receives shell blocks' stderr. */
  stderr(text: string): void;
  /** Aborts the run (Ctrl-C). */
  signal: AbortSignal;
  /**
   * The SHA-256 (lowercase hex of a string's UTF-8 bytes) that digests are
   * journaled with: `sha256Hex` unless a runtime passes its native one, which
   * gives the same digests.
   */
  sha256?: (text: string) => string;
}

/** How a run ended. */
export type RunOutcome =
  | { status: "completed" }
  | { status: "failed"; error: ErrorRecord }
  | { status: "cancelled" }
  | { status: "suspended"; suspensionId: string; eventNumber: number };

interface Coroutine {
  id: string;
  children: number;
}

interface Frame {
  document: ParsedDocument;
  scope: BindingScope;
  dir: string;
  coroutine: Coroutine;
  writer: RenderWriter;
  content?: { parts: readonly Part[]; frame: Frame };
}

/**
 * Runs a program to completion, failure or cancellation. Throws only for
 * errors that must not be journaled (divergence, persistence, secrets).
 */
export async function runProgram(options: RunOptions): Promise<RunOutcome> {
  const writer = new RenderWriter(options.stdout);
  const expander = new Expander(options);
  const frame: Frame = {
    document: options.program.root,
    scope: new BindingScope(undefined, { props: options.props, meta: options.program.root.meta }),
    dir: ".",
    coroutine: { id: "root", children: 0 },
    writer,
  };
  try {
    await expander.coroutine(frame, async () => {
      await expander.props(frame);
      await expander.render(frame.document.parts, frame);
    });
    return { status: "completed" };
  } catch (error) {
    if (error instanceof CancelledError) return { status: "cancelled" };
    if (error instanceof SuspendedError) {
      return {
        status: "suspended",
        suspensionId: error.suspensionId,
        eventNumber: error.eventNumber,
      };
    }
    const record = checkedFailure(error);
    if (!record) throw error;
    return { status: "failed", error: record };
  } finally {
    writer.end();
  }
}

class Expander {
  readonly sha256: (text: string) => string;

  constructor(readonly options: RunOptions) {
    this.sha256 = options.sha256 ?? sha256Hex;
  }

  /**
   * Runs `body` as coroutine `frame.coroutine` and records its Close: `ok`,
   * or `err` for a checked failure (rethrown). A cancellation records nothing.
   */
  async coroutine(frame: Frame, body: () => Promise<void>): Promise<void> {
    try {
      await body();
    } catch (error) {
      const record = checkedFailure(error);
      if (record) {
        await this.options.journal.close(frame.coroutine.id, { status: "err", error: record });
      }
      throw error;
    }
    await this.options.journal.close(frame.coroutine.id, { status: "ok", value: null });
  }

  async render(parts: readonly Part[], frame: Frame): Promise<void> {
    for (const part of parts) {
      switch (part.kind) {
        case "text":
          frame.writer.write(part.text);
          break;
        case "expression":
          frame.writer.write(interpolate(this.evaluate(part.expression, frame)));
          break;
        case "code":
          await this.exec(part.code, frame);
          break;
        case "element":
          await this.element(part.element, frame);
          break;
      }
    }
  }

  evaluate(expression: CompiledExpression, frame: Frame): JsonValue {
    return expression.evaluate(frame.scope.lookup);
  }

  attribute(element: Element, name: string, frame: Frame): JsonValue | undefined {
    const value = element.attributes.get(name);
    if (!value) return undefined;
    return value.kind === "literal" ? value.value : this.evaluate(value.expression, frame);
  }

  string(element: Element, name: string, frame: Frame): string {
    const value = this.attribute(element, name, frame);
    if (typeof value !== "string") {
      throw new DocumentError(
        `Attribute ${name} of <${element.name}> must be a string, got ${kind(value)}`,
        attributePosition(element, name),
      );
    }
    return value;
  }

  path(element: Element, frame: Frame): string {
    const raw = this.string(element, "path", frame);
    const path = joinLogical(frame.dir, raw);
    if (path === undefined) {
      throw new DocumentError(
        `Cannot use path "${raw}": paths are relative to the working directory and cannot leave it`,
        attributePosition(element, "path"),
      );
    }
    const tooLong = pathLengthProblem(path);
    if (tooLong !== undefined) {
      throw new DocumentError(
        `Cannot use this path: ${tooLong} (ENAMETOOLONG); use a shorter path`,
        attributePosition(element, "path"),
      );
    }
    return path;
  }

  /** The rendered text of `element`'s children. */
  async captured(element: Element, frame: Frame): Promise<string> {
    const writer = new CaptureWriter(() =>
      new DocumentError(
        `Cannot capture the text of <${element.name}>: it would be longer than ${MAX_CAPTURED_LENGTH} characters`,
        element.position,
      )
    );
    await this.render(element.children, { ...frame, writer });
    writer.end();
    return writer.text.replace(/\n$/, "");
  }

  async element(element: Element, frame: Frame): Promise<void> {
    if (element.component) return await this.component(element, frame);
    switch (element.name) {
      case "Let": {
        const as = literal(element, "as");
        const value = element.attributes.has("value")
          ? this.attribute(element, "value", frame)!
          : await this.captured(element, frame);
        frame.scope.bind(as, value);
        return;
      }
      case "If": {
        const condition = this.attribute(element, "condition", frame);
        if (condition) await this.render(element.children, frame);
        else if (element.otherwise) await this.render(element.otherwise.children, frame);
        return;
      }
      case "Each": {
        const items = this.attribute(element, "items", frame);
        if (!Array.isArray(items)) {
          throw new DocumentError(
            `<Each items={…}> needs an array, got ${kind(items)}`,
            attributePosition(element, "items"),
          );
        }
        const as = literal(element, "as");
        // Iterations of block children are separated like the body's own blocks: by a blank
        // line when the body holds blank lines, else by a newline (list items stay one list).
        const separator = !element.multiline ? undefined : hasBlankLine(element.children) ? 2 : 1;
        for (const [index, item] of items.entries()) {
          if (index > 0 && separator !== undefined) frame.writer.separate(separator);
          const scope = new BindingScope(frame.scope, { [as]: item });
          await this.render(element.children, { ...frame, scope });
        }
        frame.writer.separate(undefined);
        return;
      }
      case "Dir":
        return await this.render(element.children, { ...frame, dir: this.path(element, frame) });
      case "File":
        return element.attributes.has("as")
          ? await this.readFile(element, frame)
          : await this.writeFile(element, frame);
      case "Glob":
        return await this.glob(element, frame);
      case "Elicit":
        return await this.elicit(element, frame);
      case "Fail": {
        const message = this.attribute(element, "message", frame);
        throw new DocumentError(
          typeof message === "string" ? message : interpolate(message ?? null),
          element.position,
        );
      }
      case "Content":
        if (frame.content) {
          await this.render(frame.content.parts, {
            ...frame.content.frame,
            writer: frame.writer,
            coroutine: frame.coroutine,
          });
        }
        return;
    }
  }

  async component(element: Element, frame: Frame): Promise<void> {
    const document = this.options.program.components.get(element.name)!;
    const values: JsonObject = {};
    for (const name of element.attributes.keys()) {
      values[name] = this.attribute(element, name, frame)!;
    }
    const props = validateComponentProps(document.props, values, element.position, element.name);
    const coroutine = { id: `${frame.coroutine.id}.${frame.coroutine.children++}`, children: 0 };
    const child: Frame = {
      document,
      scope: new BindingScope(undefined, { props, meta: document.meta }),
      dir: frame.dir,
      coroutine,
      writer: frame.writer,
      content: { parts: element.children, frame },
    };
    await this.coroutine(child, () => this.render(document.parts, child));
  }

  /** Settles one effect through the journal; returns its value or throws its recorded error. */
  async effect(
    frame: Frame,
    description: Description,
    position: SourcePosition,
    run: () => Promise<JsonValue>,
  ): Promise<{ value: JsonValue; replayed: boolean }> {
    const { signal } = this.options;
    if (signal.aborted) throw new CancelledError();
    const { result, replayed } = await this.options.journal.effect(
      frame.coroutine.id,
      description,
      async () => {
        try {
          const value = await run();
          if (signal.aborted) return { status: "cancelled" };
          return { status: "ok", value };
        } catch (error) {
          if (signal.aborted) return { status: "cancelled" };
          const record = effectError(error);
          if (!record) throw error;
          return { status: "err", error: record };
        }
      },
    );
    if (result.status === "cancelled") throw new CancelledError();
    if (result.status === "err") throw new EffectFailure(result.error, position);
    return { value: result.value, replayed };
  }

  /**
   * Journals the digest of the root props first, so a replay with other props
   * diverges at event 1 instead of rendering other output. The values are never journaled.
   */
  async props(frame: Frame): Promise<void> {
    const file = frame.document.file;
    await this.effect(
      frame,
      propsEvent(file, this.sha256(canonicalJson(this.options.props))).description,
      { file, line: 1, column: 1 },
      () => Promise.resolve(null),
    );
  }

  async writeFile(element: Element, frame: Frame): Promise<void> {
    const path = this.path(element, frame);
    let content = await this.captured(element, frame);
    if (element.multiline) content += "\n";
    await this.effect(
      frame,
      describe(element, "file.write", { path, sha256: this.sha256(content) }),
      element.position,
      async () => {
        await this.options.providers.fs.writeText(path, content);
        return null;
      },
    );
  }

  async readFile(element: Element, frame: Frame): Promise<void> {
    const path = this.path(element, frame);
    const { value } = await this.effect(
      frame,
      describe(element, "file.read", { path }),
      element.position,
      () => this.options.providers.fs.readText(path),
    );
    frame.scope.bind(literal(element, "as"), value);
  }

  async glob(element: Element, frame: Frame): Promise<void> {
    const include = this.patterns(element, "include", frame);
    const exclude = element.attributes.has("exclude")
      ? this.patterns(element, "exclude", frame)
      : [];
    const { value } = await this.effect(
      frame,
      describe(element, "glob", { cwd: frame.dir, include, exclude }),
      element.position,
      () => this.options.providers.fs.glob(frame.dir, include, exclude),
    );
    frame.scope.bind(literal(element, "as"), value);
  }

  patterns(element: Element, name: string, frame: Frame): string[] {
    const value = this.attribute(element, name, frame);
    const list = typeof value === "string" ? [value] : value;
    if (!Array.isArray(list) || !list.every((item) => typeof item === "string")) {
      throw new DocumentError(
        `Attribute ${name} of <Glob> must be a string or an array of strings, got ${kind(value)}`,
        attributePosition(element, name),
      );
    }
    for (const pattern of list as string[]) {
      try {
        compileGlob(pattern);
      } catch (error) {
        if (!(error instanceof GlobPatternError)) throw error;
        throw new DocumentError(error.message, attributePosition(element, name));
      }
    }
    return list as string[];
  }

  async elicit(element: Element, frame: Frame): Promise<void> {
    const as = literal(element, "as");
    const schema = this.attribute(element, "schema", frame)!;
    const problems = compileAnswerSchema(schema, attributePosition(element, "schema"));
    const question = await this.captured(element, frame);
    const provider = this.options.providers.elicit;
    if (provider.suspends) {
      // The suspension id is derived from the durable position of its request.
      const eventNumber = this.options.journal.position + 1;
      const suspensionId = `${as}-${eventNumber}`;
      await this.effect(
        frame,
        describe(element, "suspension_request", { as, suspensionId, question, schema }),
        element.position,
        () => Promise.resolve(null),
      );
      const { value } = await this.effect(
        frame,
        describe(element, "suspension_answer", { as, suspensionId }),
        element.position,
        async () => {
          const answer = await provider.answer(suspensionId);
          if (answer === undefined) throw new SuspendedError(suspensionId, eventNumber);
          refuseAnswer(as, problems(answer));
          return answer;
        },
      );
      frame.scope.bind(as, value);
      return;
    }
    const { value } = await this.effect(
      frame,
      describe(element, "elicit", { as, question, schema }),
      element.position,
      async () => {
        const answer = await provider.ask({
          name: as,
          question,
          schema,
          problems,
          signal: this.options.signal,
        });
        // Whatever the provider checked, no answer is journaled unless it satisfies the schema.
        refuseAnswer(as, problems(answer));
        return answer;
      },
    );
    frame.scope.bind(as, value);
  }

  async exec(code: ExecCode, frame: Frame): Promise<void> {
    const script = code.script.map((piece) =>
      typeof piece === "string" ? piece : interpolate(this.evaluate(piece, frame))
    ).join("");
    const visible = !code.silent && code.as === undefined;
    const { value, replayed } = await this.effect(
      frame,
      {
        type: "exec",
        name: `exec ${formatPosition(code.position)}`,
        lang: code.lang,
        script,
        ...(code.as ? { as: code.as } : {}),
      },
      code.position,
      async () => {
        const result = await this.options.providers.shell.run({
          lang: code.lang,
          script,
          cwd: frame.dir,
          timeoutMs: code.timeoutMs,
          onStdout: (chunk) => visible && frame.writer.raw(chunk),
          onStderr: (chunk) => visible && this.options.stderr(chunk),
          signal: this.options.signal,
          position: code.position,
        });
        return {
          exitCode: result.exitCode,
          stdout: result.stdout,
          stderr: result.stderr,
          ...(result.timedOut ? { timedOut: true } : {}),
        };
      },
    );
    const result = value as { exitCode: number; stdout: string; stderr: string; timedOut?: true };
    if (replayed && visible) {
      frame.writer.raw(result.stdout);
      if (result.stderr) this.options.stderr(result.stderr);
    }
    if (code.as) {
      frame.scope.bind(code.as, {
        exitCode: result.exitCode,
        stdout: result.stdout,
        stderr: result.stderr,
      });
      return;
    }
    if (result.exitCode !== 0) {
      throw new DocumentError(
        result.timedOut
          ? `The ${code.lang} block timed out after ${code.timeoutMs} ms: raise timeout= or make it faster`
          : `The ${code.lang} block exited with code ${result.exitCode}: fix the script, or add as="result" to handle the exit code`,
        code.position,
      );
    }
  }
}

function hasBlankLine(parts: readonly Part[]): boolean {
  const text = parts.map((part) => part.kind === "text" ? part.text : "x").join("").trim();
  return /\n[ \t]*\n/.test(text);
}

function describe(element: Element, type: string, inputs: JsonObject): Description {
  return { type, name: `${element.name} ${formatPosition(element.position)}`, ...inputs };
}

function literal(element: Element, name: string): string {
  return (element.attributes.get(name) as Extract<AttributeValue, { kind: "literal" }>).value;
}

function attributePosition(element: Element, name: string): SourcePosition {
  return element.attributes.get(name)?.position ?? element.position;
}

/** How a value is written into the document: strings as they are, null as nothing, others as JSON. */
export function interpolate(value: JsonValue): string {
  if (typeof value === "string") return value;
  if (value === null) return "";
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

function kind(value: JsonValue | undefined): string {
  if (value === null || value === undefined) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/** The journaled form of an effect's documented refusal, or undefined for other errors. */
function effectError(error: unknown): ErrorRecord | undefined {
  if (error instanceof EffectRefusal) {
    return {
      name: error.name,
      message: error.message,
      ...(error instanceof FileSystemError ? { code: error.posix } : {}),
    };
  }
  if (error instanceof DocumentError) return { name: error.name, message: error.reason };
  return undefined;
}

/** The Close record of a checked failure, or undefined when the error must stop the run unjournaled. */
function checkedFailure(error: unknown): ErrorRecord | undefined {
  if (error instanceof DocumentError) return { name: error.name, message: error.message };
  if (error instanceof EffectFailure) {
    return { name: error.record.name, message: error.message };
  }
  return undefined;
}
