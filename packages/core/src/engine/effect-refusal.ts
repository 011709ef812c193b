/**
 * A documented refusal by a provider (a missing file, an unsupported block
 * language). It is journaled as an `err`
 * result and replays as the same error; any other provider error stops the
 * run without being journaled.
 *
 * @module
 */
import type { XmdErrorCode } from "../errors/error-codes.ts";
import { XmdError } from "../errors/xmd-error.ts";

/** Base class of every refusal a provider reports as a journaled effect error. */
export class EffectRefusal extends XmdError {
  /** Its stable code; a subclass names its own kind of refusal. */
  readonly code: XmdErrorCode = "effect.refused";
}
