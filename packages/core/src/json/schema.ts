/**
 * What a schema exported by these packages offers its caller: parsing a
 * received value into its type, strictly, or saying where it is wrong. The
 * schemas are zod's inside; this narrower type keeps zod out of the public
 * API, so a zod upgrade is no breaking change.
 *
 * @module
 */

/** One thing wrong with a parsed value. */
export interface SchemaIssue {
  /** The keys and indexes from the value's top to the offending member. */
  readonly path: readonly PropertyKey[];
  /** The kind of problem (`invalid_type`, `unrecognized_keys`, …). */
  readonly code: string;
  /** What is wrong there. */
  readonly message: string;
}

/** The outcome of {@linkcode Schema.safeParse}. */
export type SchemaResult<T> =
  | { readonly success: true; readonly data: T }
  | { readonly success: false; readonly error: { readonly issues: readonly SchemaIssue[] } };

/** A strict parser of received values into `T`. */
export interface Schema<T> {
  /** Returns `value` as `T`, or throws an error listing what is wrong. */
  parse(value: unknown): T;
  /** Returns `value` as `T`, or the issues found, without throwing. */
  safeParse(value: unknown): SchemaResult<T>;
}
