/**
 * The live Workspace effect path of a workflow run, for the benchmarks: a run
 * database opened with `openRunDatabase` (WAL, `synchronous=FULL`), a running
 * run, its Workspace, and a journal (secret gate on unless the caller turns it
 * off; it also checks what each effect writes) whose providers hold one
 * transaction per effect as the executor's `EffectTransactions`
 * (`packages/workflow/src/execution/execute-run.ts`, private to the executor)
 * does: the journal's beginning of an effect holds the transaction; its Yield
 * then publishes the new root (after discarding the changes of a failed
 * effect), is appended carrying that root, and commits with it. Chunks and
 * objects are hashed with `nativeSha256Hex`, as the local provider does.
 *
 * The same path runs on a remote runner's working copy when the journal's
 * commits go to a `RunCommits` (`effectRunOn` with the remote host's
 * `RemoteRunCommits`), as `executeRun` wires it there.
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
  type SecretGate,
  type ShellProvider,
} from "@xmd/core";
import { RunStore, type SqlSeam } from "@xmd/workflow";
import {
  EffectTransactions,
  publishRoot,
  type RunCommits,
  verifyRoot,
  Workspace,
  WorkspaceFileSystem,
} from "@xmd/workflow/internal";
import { nativeSha256Hex } from "@xmd/workflow/deno/internal";
import { openBenchRun } from "./_bench-run.ts";

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

/**
 * Opens a new run database at `path` (in the folder under test) with a
 * running run; `gate` (default: on) checks its events and what its effects
 * write into the Workspace.
 */
export async function openEffectRun(
  path: string,
  gate: SecretGate = createSecretGate(),
): Promise<EffectRun> {
  const { seam, store, execution } = await openBenchRun(path);
  return await effectRunOn(seam, store, execution, gate);
}

/**
 * The effect path over an open run database `seam` whose `execution` is
 * running, each effect committed through `commits` when given; the events
 * already in the journal are replayed first, so `verify` counts them too.
 */
export async function effectRunOn(
  seam: SqlSeam & Disposable,
  store: RunStore,
  execution: number,
  gate: SecretGate = createSecretGate(),
  commits?: RunCommits,
): Promise<EffectRun> {
  const effects = new EffectTransactions(store, gate, nativeSha256Hex, commits);
  let appended = store.record().eventCount;
  const stream: DurableStream = {
    readAll: () => Promise.resolve(store.events().map((entry) => entry.event)),
    append: async (event) => {
      await effects.append(execution, event);
      appended++;
    },
    beginEffect: (_coroutineId, description) => effects.begin(description),
    abandonEffect: () => effects.rollback(),
  };
  const journal = await Journal.open(stream, effects.eventGate());
  const workspace = new Workspace(seam, { sha256: nativeSha256Hex });
  const inner = new WorkspaceFileSystem(workspace);
  return {
    store,
    workspace,
    journal,
    fs: effects.wrapFileSystem(inner),
    wrapShell: (shell) => effects.wrapShell(shell),
    verify: () => {
      const record = store.record();
      const current = seam.transaction(() => publishRoot(seam, nativeSha256Hex));
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
