/**
 * A command-line mistake: what is wrong and what to type instead.
 *
 * @module
 */
import { XmdError } from "@xmd/core/protocol";

/** The command line cannot be carried out as given. */
export class UsageError extends XmdError {
  /** The class name, which journals record. */
  override name = "UsageError";
  /** Its stable code. */
  readonly code = "cli.usage";
}
