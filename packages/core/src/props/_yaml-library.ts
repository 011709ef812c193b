/**
 * The `yaml` package, imported only through `yaml-library.ts`: for
 * frontmatter the plain-frontmatter reader (`_yaml-subset.ts`) leaves to it.
 *
 * @module
 */
export * as yaml from "yaml";
