/**
 * The questions a program may ask, known before it runs: every `<Elicit>` of
 * the root and of the components it invokes, so a caller can ask for the
 * answers up front instead of failing halfway through a run.
 *
 * Invariant: a question is marked unreachable only when the run certainly
 * cannot reach it, and a schema is given only when it is certainly the one
 * the run will use. Both are decided from what is fixed before running: the
 * root's `props` and `meta` (reserved names no binding can shadow) and
 * expressions that read no name at all. Everything else is assumed reachable
 * and left to the run.
 *
 * @module
 */
import type { Program } from "../document/load-program.ts";
import type { SourcePosition } from "../document/source-position.ts";
import type { CompiledExpression } from "../expression/mod.ts";
import type { Element, Part } from "../document/tree.ts";
import type { JsonObject, JsonValue } from "../json/json-value.ts";
import { type AnswerCheck, compileAnswerSchema } from "./answer-schema.ts";

/** One `<Elicit>` element of a program. */
export interface ProgramQuestion {
  /** Its binding name (`as`). */
  name: string;
  /** Where the element starts. */
  position: SourcePosition;
  /**
   * Whether a run may reach it: `false` only inside an `<If>` branch of the
   * root that its props and metadata rule out.
   */
  reachable: boolean;
  /**
   * Whether it is asked at most once per run: it is in the root document,
   * outside every `<Each>` and every component's `<Content />`.
   */
  once: boolean;
  /** Checks an answer against its schema, when the schema is fixed before running. */
  problems?: AnswerCheck;
}

const FIXED_NAMES = new Set(["props", "meta"]);

interface Context {
  /** Whether `props` and `meta` are the root's (known) ones. */
  rootScope: boolean;
  /** Whether these parts may render more than once. */
  repeated: boolean;
  /** Whether the run may reach these parts. */
  reachable: boolean;
}

/**
 * Lists the `<Elicit>` elements of `program` in document order (a component's
 * after its first invocation), given the root's resolved `props`.
 *
 * @example An `<If>` decided by a prop
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadProgram } from "../document/load-program.ts";
 * import { programQuestions } from "./program-questions.ts";
 * const program = await loadProgram({
 *   file: "doc.md",
 *   text: '<If condition={props.ask}><Elicit as="ok" schema={{ type: "boolean" }}>Go?</Elicit></If>\n',
 * }, () => Promise.resolve(undefined));
 * const [question] = programQuestions(program, { ask: false });
 * assert.equal(question.name, "ok");
 * assert.equal(question.reachable, false);
 * ```
 */
export function programQuestions(program: Program, props: JsonObject): ProgramQuestion[] {
  const found = new Map<Element, ProgramQuestion>();
  const walked = new Set<string>();
  const lookup = (name: string): JsonValue | undefined =>
    name === "props" ? props : name === "meta" ? program.root.meta : undefined;

  /** The value of `expression` when it is fixed before running, else `undefined`. */
  const fixed = (
    expression: CompiledExpression,
    context: Context,
  ): { value: JsonValue } | undefined => {
    const known = expression.identifiers.every((name) =>
      context.rootScope && FIXED_NAMES.has(name)
    );
    if (!known) return undefined;
    try {
      return { value: expression.evaluate(lookup) };
    } catch {
      // A failing expression fails the same way when the run reaches it.
      return undefined;
    }
  };

  const walk = (parts: readonly Part[], context: Context): void => {
    for (const part of parts) {
      if (part.kind === "element") visit(part.element, context);
    }
  };

  const visit = (element: Element, context: Context): void => {
    if (element.component) {
      // The invocation's children render as the component's <Content />: in
      // the caller's scope, any number of times.
      walk(element.children, { ...context, repeated: true });
      const document = program.components.get(element.name)!;
      const key = `${element.name}\0${context.reachable}`;
      if (walked.has(key)) return;
      walked.add(key);
      walk(document.parts, { rootScope: false, repeated: true, reachable: context.reachable });
      return;
    }
    switch (element.name) {
      case "If": {
        const condition = element.attributes.get("condition")!;
        const decided = condition.kind === "expression"
          ? fixed(condition.expression, context)
          : { value: condition.value };
        const taken = decided === undefined ? undefined : Boolean(decided.value);
        walk(element.children, { ...context, reachable: context.reachable && taken !== false });
        if (element.otherwise) {
          walk(element.otherwise.children, {
            ...context,
            reachable: context.reachable && taken !== true,
          });
        }
        return;
      }
      case "Each":
        walk(element.children, { ...context, repeated: true });
        return;
      case "Elicit":
        record(element, context);
        break;
    }
    walk(element.children, context);
  };

  const record = (element: Element, context: Context): void => {
    const as = element.attributes.get("as")!;
    const schema = element.attributes.get("schema")!;
    const value = schema.kind === "expression"
      ? fixed(schema.expression, context)
      : { value: schema.value };
    let problems: AnswerCheck | undefined;
    if (value !== undefined) {
      try {
        problems = compileAnswerSchema(value.value, schema.position);
      } catch {
        // An invalid schema is the run's checked failure when it reaches the element (MDX-28).
      }
    }
    const previous = found.get(element);
    found.set(element, {
      name: (as as Extract<typeof as, { kind: "literal" }>).value,
      position: element.position,
      reachable: context.reachable || (previous?.reachable ?? false),
      once: context.rootScope && !context.repeated,
      ...(problems ? { problems } : {}),
    });
  };

  walk(program.root.parts, {
    rootScope: true,
    repeated: false,
    reachable: true,
  });
  return [...found.values()];
}
