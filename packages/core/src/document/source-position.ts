/**
 * Source positions: every diagnostic and every journal description names the
 * file, line and column it comes from, so a history is matched to the
 * document that wrote it.
 *
 * @module
 */

/** A point in a document: 1-based line and column. */
export interface SourcePosition {
  /** The document's label: the root's file name, or a component's path from the root document's folder. */
  file: string;
  /** 1-based line. */
  line: number;
  /** 1-based column. */
  column: number;
}

/** Formats a position as `file:line:column`. */
export function formatPosition(position: SourcePosition): string {
  return `${position.file}:${position.line}:${position.column}`;
}
