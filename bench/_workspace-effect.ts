/**
 * The live Workspace effect path of a workflow run, for the benchmarks: a run
 * database opened with `openRunDatabase` (WAL, `synchronous=FULL`), a running
 * run, its Workspace, and a journal (secret gate on) whose providers hold one
 * transaction per effect as the executor's `EffectTransactions`
 * (`packages/workflow/src/execution/execute-run.ts`, private to the executor)
 * does: the first provider call of an effect holds the transaction; its Yield
 * then publishes the new root (after discarding the changes of a failed
 * effect), is appended carrying that root, and commits with it.
 *
 * Invariant: a benchmark that uses this counts its live appends and checks
 * them against the database (`verify`), so a call that did not commit fails
 * the benchmark instead of timing it.
 *
 * @module
 */
import {
  createSecretGate,
  type DurableStream,
  type FileSystemProvider,
  Journal,
  type JournalEvent,
  sha256Hex,
  type ShellProvider,
} from "@xmd/core";
import {
  publishRoot,
  RunStore,
  type SqlSeam,
  verifyRoot,
  Workspace,
  WorkspaceFileSystem,
} from "@xmd/workflow";
import { openRunDatabase } from "@xmd/workflow/deno";

/** A running run whose effects go through held transactions. */
export interface EffectRun extends Disposable {
  /** The run's store (over its one connection). */
  store: RunStore;
  /** The run's Workspace. */
  workspace: Workspace;
  /** The journal, secret gate on; its appends publish and commit the held effect. */
  journal: Journal;
  /** `<File>`/`<Glob>` on the Workspace, each call joining the effect's held transaction. */
  fs: FileSystemProvider;
  /** Wraps a shell so that its block joins the effect's held transaction. */
  wrapShell(inner: ShellProvider): ShellProvider;
  /** Throws unless the database holds exactly the events appended live, on a sound root. */
  verify(): void;
}

type HeldTransaction = ReturnType<NonNullable<SqlSeam["hold"]>>;

/** The held-transaction half of `EffectTransactions`, as the executor wires it. */
class HeldEffects {
  readonly #store: RunStore;
  #held: HeldTransaction | undefined;

  constructor(store: RunStore) {
    this.#store = store;
  }

  begin(): void {
    this.#held ??= this.#store.sql.hold?.("workspace-effect");
  }

  append(execution: number, event: JournalEvent): void {
    const held = this.#held;
    this.#held = undefined;
    if (!held) {
      this.#store.append(execution, event);
      return;
    }
    try {
      if (discardsChanges(event)) held.discard();
      this.#store.append(execution, event, publishRoot(this.#store.sql));
      held.commit();
    } catch (error) {
      held.rollback();
      throw error;
    }
  }
}

/** As the executor decides: a failed or cancelled effect, or a failed block without `as`. */
function discardsChanges(event: JournalEvent): boolean {
  if (event.type !== "yield") return false;
  if (event.result.status !== "ok") return true;
  if (event.description.type !== "exec" || "as" in event.description) return false;
  const value = event.result.value as { exitCode?: unknown } | null;
  return value?.exitCode !== 0;
}

/** Opens a new run database at `path` (in the folder under test) with a running run. */
export async function openEffectRun(path: string): Promise<EffectRun> {
  const opened = await openRunDatabase(path, "the bench run", { create: true });
  if (!opened) throw new Error(`Cannot open the bench run database ${path}`);
  const seam = opened.seam;
  const store = new RunStore(seam, "the bench run");
  const text = "Bench.\n";
  const execution = store.create({
    id: "bench",
    document: "bench.md",
    target: null,
    definitionHash: sha256Hex("definition"),
    props: {},
    propsHash: sha256Hex("{}"),
    sources: [{ label: "bench.md", text, root: true }],
  });
  const effects = new HeldEffects(store);
  let appended = 0;
  const stream: DurableStream = {
    readAll: () => Promise.resolve(store.events().map((entry) => entry.event)),
    append: (event) => {
      effects.append(execution, event);
      appended++;
      return Promise.resolve();
    },
  };
  const journal = await Journal.open(stream, createSecretGate());
  const workspace = new Workspace(seam);
  const inner = new WorkspaceFileSystem(workspace);
  return {
    store,
    workspace,
    journal,
    fs: {
      readText: (path) => (effects.begin(), inner.readText(path)),
      writeText: (path, content) => (effects.begin(), inner.writeText(path, content)),
      glob: (cwd, include, exclude) => (effects.begin(), inner.glob(cwd, include, exclude)),
    },
    wrapShell: (shell) => ({ run: (request) => (effects.begin(), shell.run(request)) }),
    verify: () => {
      const record = store.record();
      const current = seam.transaction(() => publishRoot(seam));
      if (record.eventCount !== appended || record.root !== current) {
        throw new Error(
          `Cannot trust the Workspace effect bench: ${record.eventCount} of ${appended} events, root ${
            record.root === current ? "current" : "stale"
          }`,
        );
      }
      verifyRoot(seam, record.root, "the bench run");
    },
    [Symbol.dispose]: () => seam[Symbol.dispose](),
  };
}
