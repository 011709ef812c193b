/**
 * The `yaml` package (`_yaml-library.ts`), loaded on first need: about as
 * much CommonJS to load as the markdown parser, which most frontmatter (plain
 * maps, lists and scalars) does without (`_yaml-subset.ts`, MDX-111).
 *
 * Invariant: {@linkcode loadYamlLibrary} is awaited before frontmatter the
 * plain reader declines is parsed. `loadProgram` awaits it for a document
 * whose frontmatter needs it (and parses that document again if it guessed
 * wrong), so every synchronous user of {@linkcode yamlLibrary} runs after it.
 *
 * @module
 */
type YamlLibrary = typeof import("./_yaml-library.ts");

let loaded: YamlLibrary | undefined;
let loading: Promise<YamlLibrary> | undefined;

/** Thrown when frontmatter needs the `yaml` package before it was loaded; `loadProgram` loads it and parses again. */
export class YamlLibraryNeeded extends Error {
  /** The class name. */
  override name = "YamlLibraryNeeded";
}

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
  if (loaded === undefined) throw new YamlLibraryNeeded("The yaml package is not loaded yet");
  return loaded;
}
