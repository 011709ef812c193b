/**
 * What the host's filesystem said, as a user can read it: the POSIX code and
 * the system's own one-line reason, without the host path Deno appends.
 *
 * Invariant: the reason comes from the error's message before `(os error …)`
 * only, so no path, file content or stored value reaches a message through it.
 *
 * @module
 */

/** A filesystem refusal of the host. */
export interface HostProblem {
  /** The POSIX code (`ENAMETOOLONG`, `ENOTDIR`, …). */
  code: string;
  /** The system's reason in lower case (`file name too long`). */
  reason: string;
}

/** The code and reason of a Deno filesystem error, or `undefined` for an error that is not one. */
export function hostProblem(error: unknown): HostProblem | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code !== "string" || !/^E[A-Z0-9]+$/.test(code)) return undefined;
  const text = error.message.match(/^(.*?) \(os error \d+\)/)?.[1];
  const reason = text ? text[0].toLowerCase() + text.slice(1) : code;
  return { code, reason };
}
