/**
 * Typed props: frontmatter parsing, the props spec, resolving a run's props
 * from options and the environment, validating component invocations, and
 * the `--help` listing. Invariant: every props value that reaches a document
 * is JSON that validates against the document's own schema.
 *
 * @module
 */
export { type Frontmatter, parseFrontmatter } from "./frontmatter.ts";
export { formatPropsHelp } from "./props-help.ts";
export { PropsError, type PropsIssue } from "./props-error.ts";
export { createPropSpec, type PropCliType, type PropSpec, type PropsSpec } from "./props-spec.ts";
export { type PropsSources, resolveProps } from "./resolve-props.ts";
export { validateComponentProps } from "./validate-component-props.ts";
