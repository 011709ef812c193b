/**
 * Why a Workspace request was refused, in the words GNU's commands print
 * after a path (`No such file or directory`). The interpreter's filesystem
 * refuses with the POSIX code in its message; a message naming no code this
 * knows reads as a missing path, the refusal a command meets most.
 *
 * @module
 */

const WORDS: readonly (readonly [RegExp, string])[] = [
  [/ENOTDIR/, "Not a directory"],
  [/EISDIR/, "Is a directory"],
  [/EACCES/, "Permission denied"],
  [/ELOOP/, "Too many levels of symbolic links"],
  [/EEXIST/, "File exists"],
];

/** GNU's words for the refusal `error` carries. */
export function refusalWords(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return WORDS.find(([code]) => code.test(text))?.[1] ?? "No such file or directory";
}
