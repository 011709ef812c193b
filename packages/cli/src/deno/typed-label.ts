/**
 * The name of an exec block on the progress line (`release.md:17:1`), with
 * the file as the user typed the document's path. Apart from the progress
 * line itself so that drawing it loads nothing of the engine.
 *
 * @module
 */
import type { SourcePosition } from "@xmd/core";
import { formatPosition } from "@xmd/core/internal";

/**
 * A block's position as the progress line names it, with the file as
 * `display` names it in messages (as the user typed the document's path).
 */
export function typedLabel(
  display: (message: string) => string,
): (position: SourcePosition) => string {
  return (position) => display(`${formatPosition(position)}: `).slice(0, -": ".length);
}
