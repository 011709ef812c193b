/**
 * just-bash's interpreter, reached for the hooks Worker Shell puts on it
 * (WS-177, WS-184). Its class is not exported; each interpreter binds its own
 * `executeScript` and `executeStatement` when it is made, so the warm-up
 * (worker-shell-child.ts) runs a script while a hook on
 * `Function.prototype.bind` watches for that binding, and keeps the
 * prototype it was made from.
 *
 * Invariants:
 * - The hook only watches: every `bind` binds as the language does, and the
 *   hook is removed before the warm-up's promise settles, so no block ever
 *   runs with it.
 * - An interpreter the warm-up did not meet (another just-bash) is not
 *   found: the hooks are then not put, and just-bash runs as it is. The
 *   version is pinned (worker-shell-child-lock.json) and tests hold the
 *   behaviour.
 *
 * @module
 */
import type { ScriptNode, StatementNode } from "just-bash";

/** What Worker Shell's hooks use of an interpreter's methods. */
export interface Interpreter {
  executeScript(this: Interpreter, ast: ScriptNode): Promise<unknown>;
  executeStatement(this: Interpreter, statement: StatementNode): Promise<unknown>;
}

const ordinaryBind = Function.prototype.bind;

/**
 * Runs `meet` (which must run a script in a `Bash`) while watching for an
 * interpreter binding its `executeScript`, and resolves the prototype it
 * was made from, or undefined; `meet`'s own failure is the caller's.
 */
export async function captureInterpreter(
  meet: () => Promise<unknown>,
): Promise<Interpreter | undefined> {
  let interpreter: Interpreter | undefined;
  Object.defineProperty(Function.prototype, "bind", {
    configurable: true,
    writable: true,
    value(this: (...args: unknown[]) => unknown, thisArg: unknown, ...args: unknown[]) {
      if (
        interpreter === undefined && this.name === "executeScript" &&
        typeof thisArg === "object" && thisArg !== null
      ) {
        const prototype = Object.getPrototypeOf(thisArg);
        if (
          prototype?.executeScript === this && typeof prototype.executeStatement === "function"
        ) interpreter = prototype;
      }
      return Reflect.apply(ordinaryBind, this, [thisArg, ...args]);
    },
  });
  try {
    await meet();
  } finally {
    Object.defineProperty(Function.prototype, "bind", {
      configurable: true,
      writable: true,
      value: ordinaryBind,
    });
  }
  return interpreter;
}

/** Replaces `name` of `interpreter` with `wrap(original)`. */
export function wrapMethod<K extends keyof Interpreter>(
  interpreter: Interpreter,
  name: K,
  wrap: (original: Interpreter[K]) => Interpreter[K],
): void {
  Object.defineProperty(interpreter, name, {
    configurable: true,
    writable: true,
    value: wrap(interpreter[name]),
  });
}
