/**
 * Atomic Workspace effects: one live Workspace effect is one transaction,
 * held open from its first filesystem or shell call until its journal event
 * is appended with the new root. What the effect wrote into the Workspace
 * passes the secret gate before that commit; a refusal rolls the whole
 * transaction back.
 *
 * @module
 */
import {
  type FileSystemProvider,
  type JournalEvent,
  type SecretGate,
  sha256Hex,
  type ShellProvider,
} from "@xmd/core";
import type { HeldTransaction } from "../sql/sql-seam.ts";
import type { RunStore } from "../store/run-store.ts";
import { gateWrites } from "./gate-writes.ts";
import { publicationCommitted, publishRoot } from "../workspace/publish-root.ts";
import type { Sha256 } from "../workspace/root-format.ts";
import { startNoting, takeWrites } from "../workspace/workspace-writes.ts";

/**
 * One live Workspace effect = one transaction: the first filesystem or shell
 * call of an effect holds a transaction open; the effect's journal event then
 * publishes the new root (or, for a refusal, failure or cancellation, discards
 * the effect's changes first), is appended, and commits with it. The
 * effect's new chunks, names and symlink targets pass `gate` first.
 */
export class EffectTransactions {
  readonly #store: RunStore;
  readonly #sha256: Sha256;
  readonly #gate: SecretGate;
  #held: HeldTransaction | undefined;

  /**
   * Effects over `store`'s run database, publishing roots with `sha256` (see
   * `publishRoot`) and passing what each writes into the Workspace through `gate`.
   */
  constructor(store: RunStore, gate: SecretGate, sha256: Sha256 = sha256Hex) {
    this.#store = store;
    this.#gate = gate;
    this.#sha256 = sha256;
  }

  #begin(): void {
    if (this.#held) return;
    this.#held = this.#store.sql.hold?.("workspace-effect");
    if (this.#held) startNoting(this.#store.sql);
  }

  /** `inner`, with each call joining (or opening) the current effect's transaction. */
  wrapFileSystem(inner: FileSystemProvider): FileSystemProvider {
    return {
      readText: (path) => (this.#begin(), inner.readText(path)),
      writeText: (path, content) => (this.#begin(), inner.writeText(path, content)),
      glob: (cwd, include, exclude) => (this.#begin(), inner.glob(cwd, include, exclude)),
    };
  }

  /** `inner`, with each block joining (or opening) the current effect's transaction. */
  wrapShell(inner: ShellProvider): ShellProvider {
    return { run: (request) => (this.#begin(), inner.run(request)) };
  }

  /**
   * Appends `event`, inside the held effect transaction when there is one,
   * after what the effect wrote into the Workspace passed the gate (a
   * refusal rolls the effect back and appends nothing).
   */
  async append(execution: number, event: JournalEvent): Promise<void> {
    const held = this.#held;
    this.#held = undefined;
    if (!held) {
      this.#store.append(execution, event);
      return;
    }
    const writes = takeWrites(this.#store.sql);
    try {
      if (discardsChanges(event)) held.discard();
      else if (writes && event.type === "yield") {
        await gateWrites(this.#store.sql, writes, this.#gate, event.description.name);
      }
      this.#store.append(execution, event, publishRoot(this.#store.sql, this.#sha256));
      held.commit();
    } catch (error) {
      held.rollback();
      throw error;
    }
    publicationCommitted(this.#store.sql);
  }

  /** Drops a held effect whose event was never appended (a secret, a storage failure). */
  rollback(): void {
    takeWrites(this.#store.sql);
    this.#held?.rollback();
    this.#held = undefined;
  }
}

/** Whether an effect's changes must not be kept: it failed, was cancelled, or its block failed. */
export function discardsChanges(event: JournalEvent): boolean {
  if (event.type !== "yield") return false;
  if (event.result.status !== "ok") return true;
  if (event.description.type !== "exec") return false;
  const value = event.result.value as { exitCode?: unknown; timedOut?: unknown } | null;
  // A timed-out block is stopped half-way: its changes go, even when `as` binds the result.
  if (value?.timedOut === true) return true;
  return !("as" in event.description) && value?.exitCode !== 0;
}
