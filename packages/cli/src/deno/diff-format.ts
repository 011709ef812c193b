/**
 * How `xmd workflow diff` reads: one line per path, sorted by path as the
 * Workspace orders names (UTF-8 bytes). Apart from `workflow-format.ts`
 * because its comparison comes from `@xmd/workflow/internal`, which brings
 * the Workspace and the executor: only `diff` loads it.
 *
 * @module
 */
import type { RunDiff } from "@xmd/workflow";
import { compareUtf8 } from "@xmd/workflow/internal";

/** `xmd workflow diff`: `A`, `D` or `M` and the path, one per line, sorted by path. */
export function formatDiff(diff: RunDiff): string {
  const lines = [
    ...diff.added.map((path) => ["A", path]),
    ...diff.removed.map((path) => ["D", path]),
    ...diff.changed.map((path) => ["M", path]),
  ].sort(([, a], [, b]) => compareUtf8(a, b));
  return lines.map(([mark, path]) => `${mark} ${path}\n`).join("");
}
