/**
 * Failpoints: this process stops itself exactly before or after one commit
 * point, so crash claims are tested by a real SIGKILL of a real process at a
 * known place rather than by a simulated failure.
 *
 * `XMD_FAILPOINT=<point>:<before|sent|acked|after>[:<nth>][:stop]`
 *
 * - `<point>` is a `CommitPoint` (`create`, `append`, `consume-answer`,
 *   `settle`, `store-answer`, `recover-stale`, `begin-execution`, `cancel`,
 *   `initialize`, `upgrade`).
 * - `before`: the point's transaction has made all its writes and is about to
 *   `COMMIT`; `after`: its `COMMIT` has returned.
 * - For a remote run (whose working copy holds each change in a transaction
 *   until the run's Durable Object acknowledges it): `sent`, the change's
 *   frame is written to the socket and no reply has arrived; `acked`, the
 *   reply arrived and the copy's `COMMIT` has not run (the same instant as
 *   `before` for a held transaction: its `COMMIT` waits for the reply).
 *   `create` and `begin-execution` are requests of their own there (the
 *   working copy is built after them): only `sent` and `acked` apply.
 * - `<nth>` (default 1) selects the nth transaction of that point this process
 *   commits. Only an outermost transaction that changed at least one row
 *   counts: a `recover-stale` that found nothing stale commits nothing.
 * - The process sends itself SIGKILL: nothing after that line runs (no
 *   rollback, no `finally`, no unlock but the OS's). With `stop` it sends
 *   itself SIGSTOP instead, so a test can act while a live executor is frozen
 *   there, then continue it with SIGCONT.
 *
 * Invariants:
 * - The variable is read once per process, when the first run database is
 *   opened. Unset (or not readable: no env permission), seams are returned
 *   unwrapped and nothing is added to any transaction.
 * - A malformed value refuses to open any database: a typo must not turn a
 *   crash test into a run that never crashes.
 *
 * @module
 */
import type { HeldTransaction, SqlRow, SqlSeam, SqlValue } from "../sql/sql-seam.ts";
import { COMMIT_POINTS, type CommitPoint } from "../store/commit-points.ts";

/** The environment variable that arms a failpoint. */
export const FAILPOINT_VARIABLE = "XMD_FAILPOINT";

/** A parsed failpoint. */
export interface Failpoint {
  /** The commit point. */
  point: CommitPoint;
  /** Just before its `COMMIT`, or just after; for a remote run also `sent` and `acked`. */
  phase: "before" | "sent" | "acked" | "after";
  /** Which committing transaction of that point (1-based). */
  nth: number;
  /** What the process sends itself. */
  signal: "SIGKILL" | "SIGSTOP";
}

const GRAMMAR = /^([a-z-]+):(before|sent|acked|after)(?::([1-9]\d*))?(?::(stop))?$/;

/** Parses `<point>:<before|after>[:<nth>][:stop]`. */
export function parseFailpoint(text: string): Failpoint {
  const match = GRAMMAR.exec(text);
  const point = match?.[1] as CommitPoint | undefined;
  if (!match || !point || !COMMIT_POINTS.includes(point)) {
    throw new TypeError(
      `Cannot use ${FAILPOINT_VARIABLE}="${text}": write <point>:<before|sent|acked|after>[:<nth>][:stop], ` +
        `where <point> is one of ${COMMIT_POINTS.join(", ")}`,
    );
  }
  return {
    point,
    phase: match[2] as Failpoint["phase"],
    nth: match[3] === undefined ? 1 : Number(match[3]),
    signal: match[4] === "stop" ? "SIGSTOP" : "SIGKILL",
  };
}

/** The process's armed failpoint with its count so far; undefined until first read. */
let armed: { failpoint: Failpoint; seen: number } | null | undefined;

/** The point of the held transaction open on an armed seam, and how many reached `sent`. */
let held: CommitPoint | undefined;
let sent = 0;

/**
 * Called by a remote run's commits once the frame of the change its held
 * transaction holds is written to the socket: trips a `sent` failpoint
 * armed for that transaction's point.
 */
export function tripSentFailpoint(): void {
  const state = armed;
  if (!state || held === undefined) return;
  const { failpoint } = state;
  if (failpoint.phase === "sent" && held === failpoint.point && ++sent === failpoint.nth) {
    Deno.kill(Deno.pid, failpoint.signal);
  }
}

/** How many requests of the armed point and phase a remote runner sent outside a held transaction. */
let requests = 0;

/**
 * Called by a remote runner around a request that is no held transaction of
 * its working copy (`create`, `begin-execution`), once its frame is written
 * (`sent`) and once its reply arrived (`acked`): trips a failpoint armed for
 * that point and phase.
 */
export function tripRemoteFailpoint(point: CommitPoint, phase: "sent" | "acked"): void {
  const state = armedFailpoint();
  if (!state) return;
  const { failpoint } = state;
  if (failpoint.point === point && failpoint.phase === phase && ++requests === failpoint.nth) {
    Deno.kill(Deno.pid, failpoint.signal);
  }
}

function armedFailpoint(): { failpoint: Failpoint; seen: number } | null {
  if (armed === undefined) {
    const permission = Deno.permissions.querySync({ name: "env", variable: FAILPOINT_VARIABLE });
    const text = permission.state === "granted" ? Deno.env.get(FAILPOINT_VARIABLE) : undefined;
    armed = text ? { failpoint: parseFailpoint(text), seen: 0 } : null;
  }
  return armed;
}

/**
 * Opens a seam with `open` and returns it as it is or, when `XMD_FAILPOINT` is
 * set, with the failpoint armed. The variable is checked before `open` runs.
 */
export function withFailpoint(open: () => SqlSeam & Disposable): SqlSeam & Disposable {
  const state = armedFailpoint();
  const seam = open();
  return state ? new FailpointSeam(seam, state) : seam;
}

class FailpointSeam implements SqlSeam, Disposable {
  readonly #inner: SqlSeam & Disposable;
  readonly #state: { failpoint: Failpoint; seen: number };
  #depth = 0;

  constructor(inner: SqlSeam & Disposable, state: { failpoint: Failpoint; seen: number }) {
    this.#inner = inner;
    this.#state = state;
  }

  exec(sql: string, ...params: SqlValue[]): SqlRow[] {
    return this.#inner.exec(sql, ...params);
  }

  get rollbacks(): number | undefined {
    return this.#inner.rollbacks;
  }

  transaction<T>(fn: () => T, label?: CommitPoint): T {
    const { failpoint } = this.#state;
    const watched = this.#depth === 0 && label === failpoint.point;
    let trips = false;
    this.#depth++;
    try {
      const result = this.#inner.transaction(
        watched
          ? () => {
            const before = this.#changes();
            const value = fn();
            if (this.#changes() > before) trips = ++this.#state.seen === failpoint.nth;
            if (trips && failpoint.phase === "before") Deno.kill(Deno.pid, failpoint.signal);
            return value;
          }
          : fn,
        label,
      );
      if (trips && failpoint.phase === "after") Deno.kill(Deno.pid, failpoint.signal);
      return result;
    } finally {
      this.#depth--;
    }
  }

  hold(label: CommitPoint): HeldTransaction {
    const inner = this.#inner.hold!(label);
    const { failpoint } = this.#state;
    this.#depth++;
    held = label;
    let ended = false;
    const end = () => {
      if (!ended) this.#depth--;
      ended = true;
      held = undefined;
    };
    return {
      discard: () => inner.discard(),
      commit: () => {
        const trips = label === failpoint.point && ++this.#state.seen === failpoint.nth;
        const before = failpoint.phase === "before" || failpoint.phase === "acked";
        if (trips && before) Deno.kill(Deno.pid, failpoint.signal);
        end();
        inner.commit();
        if (trips && failpoint.phase === "after") Deno.kill(Deno.pid, failpoint.signal);
      },
      rollback: () => {
        end();
        inner.rollback();
      },
    };
  }

  #changes(): number {
    return Number(this.#inner.exec("SELECT total_changes() AS n")[0].n);
  }

  [Symbol.dispose](): void {
    this.#inner[Symbol.dispose]();
  }
}
