/**
 * A documented refusal by a provider (a missing file, an unsupported block
 * language). It is journaled as an `err`
 * result and replays as the same error; any other provider error stops the
 * run without being journaled.
 *
 * @module
 */

/** Base class of every refusal a provider reports as a journaled effect error. */
export class EffectRefusal extends Error {
  /** A POSIX code or another stable code, if any. */
  readonly code: string | undefined;

  /** A refusal saying `message`, with its stable `code` if it has one. */
  constructor(message: string, options?: ErrorOptions & { code?: string }) {
    super(message, options);
    this.code = options?.code;
  }
}
