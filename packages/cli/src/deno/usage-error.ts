/**
 * A command-line mistake: what is wrong and what to type instead.
 *
 * @module
 */

/** The command line cannot be carried out as given. */
export class UsageError extends Error {
  /** The class name, by which the CLI and journals recognize the error. */
  override name = "UsageError";
}
