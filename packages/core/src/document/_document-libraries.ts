/**
 * The npm packages that read a document: the markdown parser with its MDX and
 * frontmatter extensions, the YAML parser, and Ajv for prop and answer
 * schemas. Imported only through `document-libraries.ts`, when a program is
 * loaded, so a process that reads no document (`xmd --help`, `workflow list`)
 * never loads them.
 *
 * @module
 */
import Ajv from "ajv/dist/2020.js";

export { fromMarkdown } from "mdast-util-from-markdown";
export { frontmatterFromMarkdown } from "mdast-util-frontmatter";
export { mdxFromMarkdown } from "mdast-util-mdx";
export { frontmatter } from "micromark-extension-frontmatter";
export { mdxjs } from "micromark-extension-mdxjs";
export * as yaml from "yaml";

// Under Deno's npm interop the default import is the CommonJS `module.exports`;
// Ajv's typings expose the class only as its `default` member, which the
// package also sets at run time, so that member works for both.
/** Ajv for JSON Schema 2020-12. */
export const AjvClass: typeof Ajv.default = Ajv.default;
