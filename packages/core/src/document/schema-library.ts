/**
 * The answer-schema library (`_schema-library.ts`: Ajv), loaded on first
 * need: about 40 ms of CommonJS that only documents asking questions use.
 *
 * Invariant: {@linkcode loadSchemaLibrary} is awaited before an answer schema
 * is compiled. `loadProgram` does it for a program holding an `<Elicit>`, and
 * a question's schema comes only from a program it loaded, so every
 * synchronous user of {@linkcode schemaLibrary} runs after it;
 * `answerProblems`, which checks a stored schema, awaits it itself.
 *
 * @module
 */
type SchemaLibrary = typeof import("./_schema-library.ts");

let loaded: SchemaLibrary | undefined;
let loading: Promise<SchemaLibrary> | undefined;

/**
 * Loads the answer-schema library (once per process), by one `import()`
 * however many callers wait for it: Deno 2.9 can panic on a second dynamic
 * import of a graph it is still registering.
 */
export async function loadSchemaLibrary(): Promise<SchemaLibrary> {
  loading ??= import("./_schema-library.ts");
  return loaded ??= await loading;
}

/** The answer-schema library, loaded before by {@linkcode loadSchemaLibrary}. */
export function schemaLibrary(): SchemaLibrary {
  if (loaded === undefined) {
    // Never a user's mistake: an unknown error, which the CLI reports as a bug with its stack.
    throw new Error(
      "The answer-schema library was used before it was loaded; this is a bug in xmd",
    );
  }
  return loaded;
}
