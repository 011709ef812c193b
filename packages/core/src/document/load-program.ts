/**
 * Loading a program: the root document and every markdown component it
 * reaches, resolved, parsed and checked before anything runs. The returned
 * sources are the closed set a workflow run retains, each without a leading
 * byte-order mark (so a document hashes the same with or without one).
 *
 * Invariants: an unknown component, a component cycle, an unknown prop or a
 * literal prop of the wrong type is a `DocumentError` at the invocation.
 *
 * @module
 */
import type { JsonObject } from "../json/json-value.ts";
import { type PropsSpec, validateComponentProps } from "../props/mod.ts";
import { didYouMean } from "../text/did-you-mean.ts";
import { BUILTINS } from "./builtins.ts";
import { loadDocumentLibraries } from "./document-libraries.ts";
import { DocumentError } from "./document-error.ts";
import { loadSchemaLibrary } from "./schema-library.ts";
import { documentText } from "./document-text.ts";
import { type ParsedDocument, parseDocumentLoadingYaml } from "./parse-document.ts";
import type { Element } from "./tree.ts";
import { walkElements } from "./walk-elements.ts";

/** A loaded program. */
export interface Program {
  /** The root document. */
  root: ParsedDocument;
  /** Components by name (`Greeting`, `Git.Commit`). */
  components: ReadonlyMap<string, ParsedDocument>;
  /** Every source read, by file label (root first). */
  sources: ReadonlyMap<string, string>;
}

/** Reads a file next to the root document by its relative label; `undefined` when absent. */
export type SourceReader = (label: string) => Promise<string | undefined>;

/** The candidate labels for a component name, in resolution order. */
export function componentCandidates(name: string): string[] {
  const relative = `${name.split(".").join("/")}.md`;
  return [relative, `components/${relative}`];
}

/**
 * Parses the root document and resolves its components.
 *
 * @example Loading a program from memory
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadProgram } from "@xmd/core";
 * const files: Record<string, string> = {
 *   "Hi.md": "---\nprops:\n  name: { type: string }\n---\n\nHello {props.name}!\n",
 * };
 * const program = await loadProgram(
 *   { file: "doc.md", text: '<Hi name="Ada" />\n' },
 *   (label) => Promise.resolve(files[label]),
 * );
 * assert.deepEqual([...program.components.keys()], ["Hi"]);
 * assert.deepEqual([...program.sources.keys()], ["doc.md", "Hi.md"]);
 * ```
 */
export async function loadProgram(
  root: { file: string; text: string },
  read: SourceReader,
  options: { target?: string } = {},
): Promise<Program> {
  await loadDocumentLibraries();
  const rootText = documentText(root.text);
  const rootDocument = await parseDocumentLoadingYaml(rootText, root.file, {
    target: options.target,
  });
  const components = new Map<string, ParsedDocument>();
  const sources = new Map<string, string>([[root.file, rootText]]);
  const queue: ParsedDocument[] = [rootDocument];
  while (queue.length) {
    const document = queue.shift()!;
    for (const [name, position] of document.components) {
      if (components.has(name)) continue;
      let found: { label: string; text: string } | undefined;
      for (const label of componentCandidates(name)) {
        const text = await read(label);
        if (text !== undefined) {
          found = { label, text: documentText(text) };
          break;
        }
      }
      if (!found) {
        const builtin = didYouMean(name, Object.keys(BUILTINS));
        throw new DocumentError(
          `Unknown component <${name}>${
            builtin === undefined ? "" : ` (did you mean <${builtin}>?)`
          }: create ${
            componentCandidates(name).join(" or ")
          } beside the document, or use a built-in`,
          position,
        );
      }
      const parsed = await parseDocumentLoadingYaml(found.text, found.label, { component: true });
      components.set(name, parsed);
      sources.set(found.label, found.text);
      queue.push(parsed);
    }
  }
  const program = { root: rootDocument, components, sources };
  checkCycles(program);
  let asks = false;
  for (const document of [rootDocument, ...components.values()]) {
    walkElements(document.parts, (element) => {
      if (element.component) checkInvocation(element, components.get(element.name)!.props);
      if (element.name === "Elicit" && !element.component) asks = true;
    });
  }
  // Answer schemas are compiled synchronously as the run reaches a question.
  if (asks) await loadSchemaLibrary();
  return program;
}

function checkCycles(program: Program): void {
  const state = new Map<string, "visiting" | "done">();
  const visit = (name: string, trail: string[]) => {
    const document = program.components.get(name)!;
    state.set(name, "visiting");
    for (const [child, position] of document.components) {
      if (state.get(child) === "visiting") {
        const cycle = [...trail.slice(trail.indexOf(child)), name, child].join(" → ");
        throw new DocumentError(
          `Component cycle ${cycle}: a component cannot invoke itself, directly or through others`,
          position,
        );
      }
      if (!state.has(child)) visit(child, [...trail, name]);
    }
    state.set(name, "done");
  };
  for (const name of program.root.components.keys()) {
    if (!state.has(name)) visit(name, []);
  }
}

function checkInvocation(element: Element, spec: PropsSpec): void {
  const known = new Map(spec.map((prop) => [prop.name, prop]));
  const literals: JsonObject = {};
  for (const [name, value] of element.attributes) {
    const prop = known.get(name);
    if (!prop) {
      throw new DocumentError(
        `Unknown prop ${name} for <${element.name}>: ${
          spec.length ? `it accepts ${spec.map((p) => p.name).join(", ")}` : "it takes no props"
        }`,
        value.position,
      );
    }
    if (value.kind === "literal") literals[name] = value.value;
  }
  for (const prop of spec) {
    if (prop.required && !element.attributes.has(prop.name) && !("default" in prop.schema)) {
      throw new DocumentError(`<${element.name}> needs the prop ${prop.name}`, element.position);
    }
  }
  const literalSpec = spec.filter((prop) => prop.name in literals)
    .map((prop) => ({ ...prop, required: false }));
  validateComponentProps(literalSpec, literals, element.position, element.name);
}
