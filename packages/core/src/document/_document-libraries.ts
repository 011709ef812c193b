/**
 * The npm packages that read a document: the markdown parser with its MDX and
 * frontmatter extensions. Imported only through `document-libraries.ts`, when
 * a program is loaded, so a process that reads no document (`xmd --help`, `workflow list`)
 * never loads them.
 *
 * @module
 */
export { fromMarkdown } from "mdast-util-from-markdown";
export { frontmatterFromMarkdown } from "mdast-util-frontmatter";
export { mdxFromMarkdown } from "mdast-util-mdx";
export { frontmatter } from "micromark-extension-frontmatter";
export { mdxjs } from "micromark-extension-mdxjs";
