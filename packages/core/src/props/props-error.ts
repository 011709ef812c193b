/**
 * The refusal of props given to a run. Invariant: messages name the prop, the
 * source and what was expected, never the given value, since props may carry
 * secrets.
 *
 * @module
 */
import { XmdError } from "../errors/xmd-error.ts";

/** One problem with the props given to a run. */
export interface PropsIssue {
  /** The prop concerned, when the problem is about one prop. */
  readonly prop?: string;
  /** Where the value came from: `--props-version`, `XMD_PROPS_VERSION`, `--props`, `XMD_PROPS` or `default`. */
  readonly source?: string;
  /** The sentence describing the problem and what was expected. */
  readonly message: string;
}

/**
 * Props given on the command line or in the environment that the document
 * refuses. The message has one line per issue.
 *
 * @example Reporting an invalid prop
 * ```ts
 * import assert from "node:assert/strict";
 * import { PropsError } from "@xmd/core";
 * const error = new PropsError([{
 *   prop: "count",
 *   source: "--props-count",
 *   message: 'Invalid prop "count" from --props-count: must be a number',
 * }]);
 * assert.equal(error.issues[0].source, "--props-count");
 * assert.equal(error.message, 'Invalid prop "count" from --props-count: must be a number');
 * ```
 */
export class PropsError extends XmdError {
  /** Always `"PropsError"`. */
  override name = "PropsError";
  /** Its stable code. */
  readonly code = "props.invalid";
  /** Every problem found, in spec order. */
  readonly issues: readonly PropsIssue[];

  /** Builds the error from its issues; the message joins their sentences. */
  constructor(issues: readonly PropsIssue[], options?: ErrorOptions) {
    super(issues.map((issue) => issue.message).join("\n"), options);
    this.issues = issues;
  }
}
