/**
 * The `yaml` package (`_yaml-library.ts`), loaded on first need: about as
 * much CommonJS to load as the markdown parser, which most frontmatter (plain
 * maps, lists and scalars) does without (`_yaml-subset.ts`, MDX-111).
 *
 * Invariant: {@linkcode loadYamlLibrary} is awaited before frontmatter the
 * plain reader declines is read. `loadProgram` parses each document's
 * markdown, then awaits it when the document's frontmatter needs it, before
 * reading that frontmatter (`parseDocumentLoadingYaml`), so every synchronous
 * user of {@linkcode yamlLibrary} runs after it.
 *
 * @module
 */
type YamlLibrary = typeof import("./_yaml-library.ts");

let loaded: YamlLibrary | undefined;
let loading: Promise<YamlLibrary> | undefined;

/**
 * Loads the `yaml` package (once per process), by one `import()` however
 * many callers wait for it: Deno 2.9 can panic on a second dynamic import of
 * a graph it is still registering.
 */
export async function loadYamlLibrary(): Promise<YamlLibrary> {
  loading ??= import("./_yaml-library.ts");
  return loaded ??= await loading;
}

/** The `yaml` package, loaded before by {@linkcode loadYamlLibrary}. */
export function yamlLibrary(): YamlLibrary {
  if (loaded === undefined) {
    // Never a user's mistake: an unknown error, which the CLI reports as a bug with its stack.
    throw new Error("The yaml package was used before it was loaded; this is a bug in xmd");
  }
  return loaded;
}
