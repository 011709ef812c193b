/**
 * The document libraries (`_document-libraries.ts`: micromark and mdast),
 * loaded on first need rather than with the engine's modules: together
 * they cost more to load than the rest of xmd, and a command that reads no
 * document needs none of them.
 *
 * Invariant: {@linkcode loadDocumentLibraries} is awaited before anything
 * parses. `loadProgram` does it, and a
 * parsed document comes only from a program it loaded, so every synchronous user of {@linkcode documentLibraries}
 * runs after it.
 *
 * @module
 */
type DocumentLibraries = typeof import("./_document-libraries.ts");

let loaded: DocumentLibraries | undefined;
let loading: Promise<DocumentLibraries> | undefined;

/**
 * Loads the document libraries (once per process), by one `import()` however
 * many callers wait for it: Deno 2.9 can panic on a second dynamic import of
 * a graph it is still registering.
 */
export async function loadDocumentLibraries(): Promise<DocumentLibraries> {
  loading ??= import("./_document-libraries.ts");
  return loaded ??= await loading;
}

/** The document libraries, loaded before by {@linkcode loadDocumentLibraries}. */
export function documentLibraries(): DocumentLibraries {
  if (loaded === undefined) {
    // Never a user's mistake: an unknown error, which the CLI reports as a bug with its stack.
    throw new Error(
      "The document libraries were used before they were loaded; this is a bug in xmd",
    );
  }
  return loaded;
}
