/**
 * Statements a Worker Shell transform writes into a block's script: placed
 * at the line of the statement they stand for (so `$LINENO` and messages
 * name the user's line) and without source text of their own (so `set -v`
 * prints the user's, once).
 *
 * @module
 */
import type { StatementNode } from "just-bash";

/** `statement`, every node of it moved to `line`, its source text removed; in place. */
export function positioned(statement: StatementNode, line: number | undefined): StatementNode {
  delete statement.sourceText;
  const stack: object[] = [statement];
  while (stack.length > 0) {
    const value = stack.pop() as { line?: number };
    if ("line" in value) value.line = line;
    for (const child of Object.values(value)) {
      if (child !== null && typeof child === "object") stack.push(child);
    }
  }
  return statement;
}
