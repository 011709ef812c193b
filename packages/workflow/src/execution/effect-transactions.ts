/**
 * Atomic Workspace effects: one live Workspace effect is one transaction,
 * held open from the moment the journal begins the effect until its journal
 * event is appended with the new root. What the effect wrote into the
 * Workspace passes the secret gate before that commit; a refusal rolls the
 * whole transaction back.
 *
 * Invariants:
 * - The journal marks the boundaries (`DurableStream.beginEffect`, then the
 *   Yield's append or `abandonEffect`); nothing is inferred from provider
 *   calls. A Workspace effect (`file.read`, `file.write`, `glob`, `exec`)
 *   holds its transaction from its beginning, so every call it makes joins
 *   that transaction; a provider called outside one is refused as a bug.
 * - A seam that cannot hold a transaction is refused when the effect begins
 *   (`HeldTransactionRequiredError`), before it runs: its calls would commit
 *   one by one and never publish a root.
 * - Through `eventGate`, a held effect's journal event is scanned at its
 *   commit together with what the effect wrote, in one pass, and before
 *   anything of it is appended: every event is still scanned, once, before
 *   it is persisted; an event outside a held effect is scanned at once.
 * - Without a `RunCommits`, the root Close is appended in a held transaction
 *   that `settle` commits with the settlement it implies (WF-181): nothing
 *   runs past the root Close but that settlement, so the two are durable
 *   together or not at all, in one `synchronous=FULL` commit instead of two.
 *
 * @module
 */
import {
  type Description,
  type FileSystemProvider,
  type JournalEvent,
  type SecretGate,
  sha256Hex,
  type ShellProvider,
} from "@xmd/core";
import type { RunStatus, StopReason } from "../contracts/run-record.ts";
import type { HeldTransaction } from "../sql/sql-seam.ts";
import type { RunStore } from "../store/run-store.ts";
import { type DeferredEvent, gateWrites } from "./gate-writes.ts";
import { commitHeld, frontierOf, holdOn, type RunCommits, settleRun } from "./run-commits.ts";
import type { CommitPoint } from "../store/commit-points.ts";
import { publicationCommitted, publishRoot } from "../workspace/publish-root.ts";
import type { Sha256 } from "../workspace/root-format.ts";
import { startNoting, takeWrites } from "../workspace/workspace-writes.ts";

/** The effect types that read or change the Workspace: each is one held transaction. */
export const WORKSPACE_EFFECTS: ReadonlySet<string> = new Set([
  "file.read",
  "file.write",
  "glob",
  "exec",
]);

/**
 * One live Workspace effect = one transaction: when the journal begins a
 * Workspace effect, a transaction is held open; the effect's provider calls
 * join it; its journal event then publishes the new root (or, for a refusal,
 * failure or cancellation, discards the effect's changes first), is appended,
 * and commits with it. The effect's new chunks, names and symlink targets
 * pass `gate` first.
 */
export class EffectTransactions {
  readonly #store: RunStore;
  readonly #sha256: Sha256;
  readonly #gate: SecretGate;
  readonly #commits: RunCommits | undefined;
  #held: HeldTransaction | undefined;
  /** The held effect's event, checked by the journal and scanned at the commit. */
  #event: DeferredEvent | undefined;
  /** The root Close, appended and waiting to commit with its settlement (`settle`). */
  #closing: HeldTransaction | undefined;

  /**
   * Effects over `store`'s run database, publishing roots with `sha256` (see
   * `publishRoot`) and passing what each writes into the Workspace through `gate`;
   * with `commits`, each event is offered to that authority before it commits.
   */
  constructor(
    store: RunStore,
    gate: SecretGate,
    sha256: Sha256 = sha256Hex,
    commits?: RunCommits,
  ) {
    this.#store = store;
    this.#gate = gate;
    this.#sha256 = sha256;
    this.#commits = commits;
  }

  /**
   * The gate for the journal's events: `gate`, except that the event of a
   * held Workspace effect is scanned when that effect commits, in one pass
   * with what it wrote (the journal appends it right after its check).
   */
  eventGate(): SecretGate {
    const gate = this.#gate;
    return {
      off: gate.off,
      check: (text, where) => {
        if (this.#held === undefined || gate.off) return gate.check(text, where);
        this.#event = { text, where };
        return Promise.resolve();
      },
    };
  }

  /**
   * The journal begins a live effect described by `description`: a Workspace
   * effect holds its transaction now (a seam without `hold` is refused).
   */
  begin(description: Description): void {
    // An effect that ended without settling was abandoned; nothing of it is kept.
    this.rollback();
    if (!WORKSPACE_EFFECTS.has(description.type)) return;
    this.#held = holdOn(this.#store, "workspace-effect");
    startNoting(this.#store.sql);
  }

  /** Rejects a Workspace call made while no Workspace effect holds its transaction. */
  #outside<T>(): Promise<T> {
    return Promise.reject(
      new Error("A Workspace call came outside a Workspace effect; this is a bug in xmd"),
    );
  }

  /** `inner`, with each call joining the current effect's transaction. */
  wrapFileSystem(inner: FileSystemProvider): FileSystemProvider {
    return {
      readText: (path) => this.#held ? inner.readText(path) : this.#outside(),
      writeText: (path, content) => this.#held ? inner.writeText(path, content) : this.#outside(),
      glob: (cwd, include, exclude) =>
        this.#held ? inner.glob(cwd, include, exclude) : this.#outside(),
    };
  }

  /** `inner`, with each block joining the current effect's transaction. */
  wrapShell(inner: ShellProvider): ShellProvider {
    return { run: (request) => this.#held ? inner.run(request) : this.#outside() };
  }

  /**
   * Appends `event`, inside the held effect transaction when there is one,
   * after what the effect wrote into the Workspace passed the gate (a
   * refusal rolls the effect back and appends nothing). With a `RunCommits`
   * every event is appended in a held transaction and offered to it before
   * that transaction commits; a rejection rolls the event (and its effect)
   * back and is rethrown.
   */
  async append(execution: number, event: JournalEvent): Promise<void> {
    const held = this.#held;
    this.#held = undefined;
    const commits = this.#commits;
    if (!held) {
      if (!commits) {
        if (event.type === "close" && event.coroutineId === "root") {
          // Committed by `settle`, with the settlement: nothing runs between them (WF-181).
          const closing = holdOn(this.#store, "settle");
          try {
            this.#store.append(execution, event);
          } catch (error) {
            closing.rollback();
            throw error;
          }
          this.#closing = closing;
          return;
        }
        this.#store.append(execution, event);
        return;
      }
      // Not a Workspace effect: the event alone, offered before its COMMIT.
      await commitHeld(holdOn(this.#store, appendPoint(event)), commits, () => {
        const expected = frontierOf(this.#store, execution);
        // `commitHeld` rolls the whole transaction back if this throws: no savepoint of its own.
        this.#store.appendWithin(execution, event);
        return { kind: "append", expected, event, root: expected.root };
      });
      return;
    }
    const writes = takeWrites(this.#store.sql);
    const deferred = this.#event;
    this.#event = undefined;
    await commitHeld(held, commits, async () => {
      const discarded = discardsChanges(event);
      if (discarded) held.discard();
      // The frontier is read only when there is an authority to offer the change to.
      const expected = commits ? frontierOf(this.#store, execution) : null;
      if (!discarded && writes && event.type === "yield") {
        await gateWrites(this.#store.sql, writes, this.#gate, event.description.name, deferred);
      } else if (deferred) await this.#gate.check(deferred.text, deferred.where);
      const root = publishRoot(this.#store.sql, this.#sha256);
      // `commitHeld` rolls the whole transaction back if this throws: no savepoint of its own.
      this.#store.appendWithin(execution, event, root);
      return expected ? { kind: "append", expected, event, root } : null;
    });
    // The root was published last before that commit: nothing after it changed the Workspace.
    publicationCommitted(this.#store.sql, true);
  }

  /**
   * Ends `execution` with `status` and `stopReason`: in the same transaction
   * as the root Close when it waits for it (locally), else as `settleRun`
   * does. A failure rolls both back and is rethrown.
   */
  async settle(execution: number, status: RunStatus, stopReason: StopReason | null): Promise<void> {
    this.#dropEffect();
    const closing = this.#closing;
    this.#closing = undefined;
    if (!closing) {
      await settleRun(this.#store, this.#commits, execution, status, stopReason);
      return;
    }
    await commitHeld(closing, undefined, () => {
      this.#store.settle(execution, status, stopReason);
      return null;
    });
  }

  /**
   * Drops a held effect whose event was never appended (its run threw, a
   * secret, a storage failure), and a root Close not yet settled; nothing
   * when none is held.
   */
  rollback(): void {
    this.#dropEffect();
    this.#closing?.rollback();
    this.#closing = undefined;
  }

  #dropEffect(): void {
    takeWrites(this.#store.sql);
    this.#event = undefined;
    this.#held?.rollback();
    this.#held = undefined;
  }
}

/** The commit point of appending `event` alone (outside a Workspace effect). */
function appendPoint(event: JournalEvent): CommitPoint {
  return event.type === "yield" && event.description.type === "suspension_answer"
    ? "consume-answer"
    : "append";
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
