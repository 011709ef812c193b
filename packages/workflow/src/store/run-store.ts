/**
 * The run store: one run's record, retained definition, executions, journal
 * and pending answers, written once over the SQL seam for every provider.
 *
 * Invariants:
 * - Every write that belongs to an execution checks, inside its transaction,
 *   that the run is `running` under that execution (the fence that makes a
 *   stale executor's writes fail instead of landing).
 * - A `suspension_answer` event and the consumption of its answer commit in
 *   one transaction.
 * - An append writes its event row only (schema version 2): the run's
 *   current root is its last event's (the run row's before any event) and
 *   its update time the later of the run row's and the last event's, so the
 *   run row is written only when the run's state changes.
 * - Every row read is parsed with zod; a row that does not parse is
 *   `WorkflowDatabaseCorruptError`, never repaired.
 *
 * @module
 */
import {
  type JournalEvent,
  JournalEventSchema,
  type JsonObject,
  type JsonValue,
  lazySchema,
  type Schema,
  sha256Hex,
} from "@xmd/core/protocol";
import * as z from "zod/mini";
import {
  type DocumentExecution,
  type PendingSuspension,
  type RunRecord,
  type RunStatus,
  RunStatusSchema,
  type StopReason,
  StopReasonSchema,
} from "../contracts/run-record.ts";
import {
  ExecutorLostError,
  RunStateError,
  WorkflowDatabaseCorruptError,
} from "../contracts/workflow-errors.ts";
import type { SqlRow, SqlSeam } from "../sql/sql-seam.ts";
import { publishRoot } from "../workspace/publish-root.ts";
import type { Sha256 } from "../workspace/root-format.ts";
import type { CommitPoint } from "./commit-points.ts";

/** A retained source of the definition. */
export interface RetainedSource {
  /** Its label (relative to the root document's folder). */
  label: string;
  /** Its text. */
  text: string;
  /** Whether it is the root document. */
  root: boolean;
}

/** One committed journal event, as the store reads it back. */
export interface StoredEvent {
  /** Its number (1-based seq). */
  id: number;
  /** Its commit time (milliseconds). */
  at: number;
  /** The Workspace root current after it. */
  root: string;
  /** The event. */
  event: JournalEvent;
}

/**
 * How many journal events one read of the event table returns at most, where
 * the journal is read in pieces (`eachEvent`, a replay's pages): the memory a
 * resume holds for its journal is this many events, not the run's length.
 */
export const EVENT_PAGE = 256;

/** What a new run is made of. */
export interface NewRun {
  /** The run id. */
  id: string;
  /** The root document's label. */
  document: string;
  /** `Section/Sub`, or null. */
  target: string | null;
  /** The definition's identity. */
  definitionHash: string;
  /** The resolved props. */
  props: JsonObject;
  /** SHA-256 of the canonical props JSON. */
  propsHash: string;
  /** Every source, root first. */
  sources: readonly RetainedSource[];
}

const RunRowSchema = lazySchema(() =>
  z.strictObject({
    singleton: z.literal(1),
    id: z.string().check(z.minLength(1)),
    document: z.string().check(z.minLength(1)),
    target: z.nullable(z.string()),
    definition_hash: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
    props_hash: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
    status: RunStatusSchema,
    stop_reason: z.nullable(z.string()),
    execution: z.number().check(z.int(), z.nonnegative()),
    root: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
    created_at: z.number().check(z.int()),
    updated_at: z.number().check(z.int()),
  })
);

const PropsRowSchema = lazySchema(() => z.strictObject({ value: z.string() }));
const PropsSchema = lazySchema(() => z.record(z.string(), z.unknown()));
const RootSchema = lazySchema(() =>
  z.strictObject({ root: z.string().check(z.regex(/^[0-9a-f]{64}$/)) })
);
const LastEventSchema = lazySchema(() =>
  z.strictObject({
    seq: z.number().check(z.int(), z.positive()),
    root: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
    created_at: z.number().check(z.int()),
  })
);
const FenceSchema = lazySchema(() =>
  z.strictObject({
    last: z.nullable(z.string().check(z.regex(/^[0-9a-f]{64}$/))),
    root: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
  })
);

const PositionSchema = lazySchema(() =>
  z.strictObject({
    seq: z.nullable(z.number().check(z.int(), z.positive())),
    root: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
  })
);

const ExecutionRowSchema = lazySchema(() =>
  z.strictObject({
    seq: z.number().check(z.int(), z.positive()),
    kind: z.enum(["start", "resume"]),
    started_at: z.number().check(z.int()),
    ended_at: z.nullable(z.number().check(z.int())),
    outcome: z.nullable(RunStatusSchema),
  })
);

const EventPositionSchema = lazySchema(() =>
  z.strictObject({
    seq: z.number().check(z.int(), z.positive()),
    execution: z.number().check(z.int(), z.positive()),
  })
);

const SourceRowSchema = lazySchema(() =>
  z.strictObject({
    label: z.string().check(z.minLength(1)),
    sha256: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
    text: z.string(),
    root: z.union([z.literal(0), z.literal(1)]),
  })
);

/** The run store over one run database. */
export class RunStore {
  readonly #sql: SqlSeam;
  readonly #where: string;
  readonly #now: () => number;

  /** `where` names the database in messages; `now` is the clock (milliseconds). */
  constructor(sql: SqlSeam, where: string, now: () => number = Date.now) {
    this.#sql = sql;
    this.#where = where;
    this.#now = now;
  }

  /** The SQL seam (for providers that add their own tables in the same transactions). */
  get sql(): SqlSeam {
    return this.#sql;
  }

  /**
   * Creates the run and its first execution (`running`), atomically. Returns
   * the execution seq. Each source's hash is computed with `sha256` (a
   * runtime's native SHA-256: a large document's sources are hashed here).
   */
  create(run: NewRun, sha256: Sha256 = sha256Hex): number {
    return this.#sql.transaction(() => {
      const now = this.#now();
      this.#sql.exec(
        "INSERT INTO run (singleton, id, document, target, definition_hash, props_hash, " +
          "status, stop_reason, execution, root, created_at, updated_at) " +
          "VALUES (1, ?, ?, ?, ?, ?, 'running', NULL, 1, ?, ?, ?)",
        run.id,
        run.document,
        run.target,
        run.definitionHash,
        run.propsHash,
        publishRoot(this.#sql),
        now,
        now,
      );
      this.#sql.exec(
        "INSERT INTO props (singleton, value) VALUES (1, ?)",
        JSON.stringify(run.props),
      );
      for (const source of run.sources) {
        this.#sql.exec(
          "INSERT INTO source (label, sha256, text, root) VALUES (?, ?, ?, ?)",
          source.label,
          sha256(source.text),
          source.text,
          source.root ? 1 : 0,
        );
      }
      this.#sql.exec(
        "INSERT INTO execution (seq, kind, started_at) VALUES (1, 'start', ?)",
        now,
      );
      return 1;
    }, "create");
  }

  /** Whether the database holds a run. */
  hasRun(): boolean {
    return this.#sql.exec("SELECT count(*) AS n FROM run")[0].n === 1;
  }

  /** The run record. */
  record(): RunRecord {
    const row = this.#runRow();
    // Event seqs start at 1 and rows are never deleted, so the last seq is the count.
    const found = this.#sql.exec(
      "SELECT seq, root, created_at FROM event ORDER BY seq DESC LIMIT 1",
    )[0];
    const last = found === undefined
      ? undefined
      : this.#parseRow(found, LastEventSchema, `journal event ${found.seq}`);
    return {
      id: row.id,
      document: row.document,
      target: row.target,
      definitionHash: row.definition_hash,
      propsHash: row.props_hash,
      status: row.status,
      stopReason: row.stop_reason === null ? null : this.#parseJson(
        row.stop_reason,
        StopReasonSchema,
        "run stop reason",
      ),
      createdAt: row.created_at,
      updatedAt: Math.max(row.updated_at, last?.created_at ?? row.updated_at),
      eventCount: last?.seq ?? 0,
      root: last?.root ?? row.root,
    };
  }

  /**
   * How far the run's journal is committed: its event count and current
   * root, as `record` reports them, in one statement and without the rest
   * of the record (an executor that commits remotely reads it per change).
   */
  position(): { eventCount: number; root: string } {
    const rows = this.#sql.exec(
      "SELECT e.seq, coalesce(e.root, r.root) AS root FROM run r " +
        "LEFT JOIN (SELECT seq, root FROM event ORDER BY seq DESC LIMIT 1) e",
    );
    if (rows.length !== 1) {
      throw new WorkflowDatabaseCorruptError(`Cannot read ${this.#where}: it holds no run record`);
    }
    const { seq, root } = this.#parseRow(rows[0], PositionSchema, "run record");
    // Event seqs start at 1 and rows are never deleted, so the last seq is the count.
    return { eventCount: seq ?? 0, root };
  }

  /** The run's resolved props. */
  props(): JsonObject {
    const rows = this.#sql.exec("SELECT value FROM props");
    if (rows.length !== 1) {
      throw new WorkflowDatabaseCorruptError(`Cannot read ${this.#where}: it holds no props`);
    }
    const row = this.#parseRow(rows[0], PropsRowSchema, "props");
    return this.#parseJson(row.value, PropsSchema, "props") as JsonObject;
  }

  /** The retained sources, root first. */
  sources(): RetainedSource[] {
    const rows = this.#sql.exec("SELECT label, sha256, text, root FROM source ORDER BY root DESC")
      .map((row) => this.#parseRow(row, SourceRowSchema, "source"));
    return rows.map((row) => {
      const source = { label: row.label, text: row.text, root: row.root === 1 };
      if (sha256Label(source) !== row.sha256) {
        throw new WorkflowDatabaseCorruptError(
          `Cannot read ${this.#where}: retained source ${row.label} does not match its hash`,
        );
      }
      return source;
    });
  }

  /** Every document execution, in order. */
  executions(): DocumentExecution[] {
    return this.#sql.exec(
      "SELECT seq, kind, started_at, ended_at, outcome FROM execution ORDER BY seq",
    )
      .map((row) => this.#parseRow(row, ExecutionRowSchema, "execution"))
      .map((row) => ({
        seq: row.seq,
        kind: row.kind,
        startedAt: row.started_at,
        endedAt: row.ended_at,
        outcome: row.outcome,
      }));
  }

  /**
   * Every committed journal event, in order, with its id (1-based seq) and
   * commit time, read whole (what `history` returns).
   */
  events(): StoredEvent[] {
    return this.#sql.exec("SELECT seq, body, root, created_at FROM event ORDER BY seq").map(
      (row) => this.#storedEvent(row),
    );
  }

  /**
   * Every committed journal event, in order, as {@linkcode events} returns
   * them, read {@linkcode EVENT_PAGE} at a time: what is held is one page,
   * however long the journal (resume verifies and replays a run this way).
   */
  *eachEvent(): Generator<StoredEvent> {
    let after: number | undefined;
    for (;;) {
      const page = after === undefined
        ? this.#sql.exec(
          "SELECT seq, body, root, created_at FROM event ORDER BY seq LIMIT ?",
          EVENT_PAGE,
        )
        : this.#sql.exec(
          "SELECT seq, body, root, created_at FROM event WHERE seq > ? ORDER BY seq LIMIT ?",
          after,
          EVENT_PAGE,
        );
      for (const row of page) yield this.#storedEvent(row);
      if (page.length < EVENT_PAGE) return;
      after = Number(page[page.length - 1].seq);
    }
  }

  /**
   * The events from id `first` on, at most `count` of them, in order (fewer
   * when the journal ends first): one page of the journal. A missing event
   * among them is `WorkflowDatabaseCorruptError`.
   */
  eventPage(first: number, count: number): StoredEvent[] {
    return this.#sql.exec(
      "SELECT seq, body, root, created_at FROM event WHERE seq >= ? ORDER BY seq LIMIT ?",
      first,
      count,
    ).map((row, index) => {
      if (Number(row.seq) !== first + index) {
        throw new WorkflowDatabaseCorruptError(
          `Cannot read ${this.#where}: its journal has no event ${first + index}`,
        );
      }
      return this.#storedEvent(row);
    });
  }

  /** The last committed journal event, or undefined when there is none. */
  lastEvent(): StoredEvent | undefined {
    const row = this.#sql.exec(
      "SELECT seq, body, root, created_at FROM event ORDER BY seq DESC LIMIT 1",
    )[0];
    return row === undefined ? undefined : this.#storedEvent(row);
  }

  #storedEvent(row: SqlRow): StoredEvent {
    const id = Number(row.seq);
    return {
      id,
      at: Number(row.created_at),
      root: this.#parseRow({ root: row.root }, RootSchema, `journal event ${id}`).root,
      event: this.#parseJson(String(row.body), JournalEventSchema, `journal event ${id}`),
    };
  }

  /** The Workspace root current after event `id`, or undefined when there is no such event. */
  rootAfter(id: number): string | undefined {
    const row = this.#sql.exec("SELECT root FROM event WHERE seq = ?", id)[0];
    if (!row) return undefined;
    return this.#parseRow({ root: row.root }, RootSchema, `journal event ${id}`).root;
  }

  /** The number of the run's current (latest) execution. */
  currentExecution(): number {
    return this.#runRow().execution;
  }

  /**
   * Every journal event's seq and the execution that appended it, in order
   * (bodies unread), read {@linkcode EVENT_PAGE} at a time.
   */
  *eachEventPosition(): Generator<{ seq: number; execution: number }> {
    let after: number | undefined;
    for (;;) {
      const page = after === undefined
        ? this.#sql.exec("SELECT seq, execution FROM event ORDER BY seq LIMIT ?", EVENT_PAGE)
        : this.#sql.exec(
          "SELECT seq, execution FROM event WHERE seq > ? ORDER BY seq LIMIT ?",
          after,
          EVENT_PAGE,
        );
      for (const row of page) yield this.#parseRow(row, EventPositionSchema, "journal");
      if (page.length < EVENT_PAGE) return;
      after = Number(page[page.length - 1].seq);
    }
  }

  /** Every answer stored and not yet consumed, by suspension id. */
  answers(): { suspensionId: string; value: JsonValue }[] {
    return this.#sql.exec("SELECT suspension_id, value FROM answer ORDER BY suspension_id").map(
      (row) => ({
        suspensionId: String(row.suspension_id),
        value: this.#parseJson(String(row.value), z.unknown(), "answer") as JsonValue,
      }),
    );
  }

  /**
   * Begins a new execution of a `suspended` or `interrupted` run (or closes a
   * stale `running` one as interrupted first). Returns the new execution seq.
   */
  beginExecution(allowed: readonly RunStatus[]): number {
    return this.#sql.transaction(() => {
      const row = this.#runRow();
      if (!allowed.includes(row.status)) {
        throw new RunStateError(`Cannot continue run "${row.id}": it is ${row.status}`);
      }
      const now = this.#now();
      const seq = row.execution + 1;
      this.#sql.exec(
        "INSERT INTO execution (seq, kind, started_at) VALUES (?, 'resume', ?)",
        seq,
        now,
      );
      this.#sql.exec(
        "UPDATE run SET status = 'running', stop_reason = NULL, execution = ?, updated_at = ?",
        seq,
        now,
      );
      return seq;
    }, "begin-execution");
  }

  /** Closes a stale `running` execution (its executor died) as `interrupted`. */
  recoverStale(): boolean {
    return this.#sql.transaction(() => {
      const row = this.#runRow();
      if (row.status !== "running") return false;
      const now = this.#now();
      this.#sql.exec(
        "UPDATE execution SET ended_at = ?, outcome = 'interrupted' WHERE seq = ?",
        now,
        row.execution,
      );
      this.#sql.exec(
        "UPDATE run SET status = 'interrupted', stop_reason = ?, updated_at = ?",
        JSON.stringify({ kind: "host", code: "crashed" }),
        now,
      );
      return true;
    }, "recover-stale");
  }

  /**
   * Appends one journal event for `execution`; consumes the answer a
   * `suspension_answer` carries. `root` is the Workspace root current after
   * the event (a Workspace effect's new root); it becomes the run's current
   * root. Without it the current root is unchanged. The run row is read (the
   * fence), not written.
   */
  append(execution: number, event: JournalEvent, root?: string): number {
    const point: CommitPoint =
      event.type === "yield" && event.description.type === "suspension_answer"
        ? "consume-answer"
        : "append";
    return this.#sql.transaction(() => this.appendWithin(execution, event, root), point);
  }

  /**
   * Appends as {@linkcode append} does, inside the caller's open transaction
   * and without a savepoint of its own: for a caller that rolls that whole
   * transaction back when this throws (a held effect's commit). A savepoint
   * would make SQLite copy each page the append first changes into its
   * statement journal, for a rollback the caller does anyway.
   */
  appendWithin(execution: number, event: JournalEvent, root?: string): number {
    const body = JSON.stringify(event);
    const now = this.#now();
    // The fence, read in the append's write transaction (no other writer can change the run
    // before it commits), with the root current before the event: the last event's.
    const fenced = this.#sql.exec(
      "SELECT (SELECT root FROM event ORDER BY seq DESC LIMIT 1) AS last, root FROM run " +
        "WHERE status = 'running' AND execution = ?",
      execution,
    );
    if (fenced.length !== 1) {
      this.#checkExecution(execution);
      throw new Error("The run record refused an append it holds; this is a bug in xmd");
    }
    if (event.type === "yield" && event.description.type === "suspension_answer") {
      const id = String(event.description.suspensionId);
      const consumed = this.#sql.exec(
        "DELETE FROM answer WHERE suspension_id = ? RETURNING suspension_id",
        id,
      );
      if (consumed.length !== 1) {
        throw new RunStateError(`Cannot record the answer to ${id}: no answer is pending`);
      }
    }
    let after = root;
    if (after === undefined) {
      const current = this.#parseRow(fenced[0], FenceSchema, "run record");
      after = current.last ?? current.root;
    }
    const inserted = this.#sql.exec(
      "INSERT INTO event (execution, body, root, created_at) VALUES (?, ?, ?, ?) RETURNING seq",
      execution,
      body,
      after,
      now,
    );
    return Number(inserted[0].seq);
  }

  /** Ends `execution` with `status` and `stopReason`, atomically. */
  settle(execution: number, status: RunStatus, stopReason: StopReason | null): void {
    this.#sql.transaction(() => {
      this.#checkExecution(execution);
      const now = this.#now();
      this.#sql.exec(
        "UPDATE execution SET ended_at = ?, outcome = ? WHERE seq = ?",
        now,
        status,
        execution,
      );
      this.#sql.exec(
        "UPDATE run SET status = ?, stop_reason = ?, updated_at = ?",
        status,
        stopReason === null ? null : JSON.stringify(stopReason),
        now,
      );
    }, "settle");
  }

  /** Cancels a run that is not running and not finished. */
  cancel(): void {
    this.#sql.transaction(() => {
      const row = this.#runRow();
      checkCancellable(row.id, row.status);
      this.#sql.exec("DELETE FROM answer");
      this.#sql.exec(
        "UPDATE run SET status = 'cancelled', stop_reason = ?, updated_at = ?",
        JSON.stringify({ kind: "host", code: "cancelled" }),
        this.#now(),
      );
    }, "cancel");
  }

  /**
   * The question a suspended run waits on, or null. `record` is what
   * {@linkcode RunStore.record} returned in the same read, for a caller that
   * has it (`list` reads each run's record once).
   */
  pendingSuspension(record: RunRecord = this.record()): PendingSuspension | null {
    if (record.status !== "suspended" || record.stopReason?.kind !== "journal") return null;
    const eventId = record.stopReason.eventId;
    const row = this.#sql.exec("SELECT body FROM event WHERE seq = ?", eventId)[0];
    if (!row) {
      throw new WorkflowDatabaseCorruptError(
        `Cannot read ${this.#where}: the run stops at event ${eventId}, which does not exist`,
      );
    }
    const event = this.#parseJson(String(row.body), JournalEventSchema, `journal event ${eventId}`);
    if (event.type !== "yield" || event.description.type !== "suspension_request") {
      throw new WorkflowDatabaseCorruptError(
        `Cannot read ${this.#where}: the run stops at event ${eventId}, which is not a question`,
      );
    }
    const suspensionId = String(event.description.suspensionId);
    const answered = this.#sql.exec(
      "SELECT count(*) AS n FROM answer WHERE suspension_id = ?",
      suspensionId,
    )[0].n === 1;
    return {
      suspensionId,
      question: String(event.description.question),
      schema: event.description.schema,
      answered,
    };
  }

  /** Stores one pending answer (already validated by the caller). Appends nothing. */
  storeAnswer(suspensionId: string, value: JsonValue): void {
    this.#sql.transaction(() => {
      const pending = this.pendingSuspension();
      const record = this.record();
      if (!pending) {
        throw new RunStateError(
          `Cannot answer run "${record.id}": it is ${record.status}, not waiting for an answer`,
        );
      }
      if (pending.suspensionId !== suspensionId) {
        throw new RunStateError(
          `Cannot answer "${suspensionId}": run "${record.id}" waits for ${pending.suspensionId}`,
        );
      }
      if (pending.answered) {
        throw new RunStateError(
          `Cannot answer "${suspensionId}" again: an answer is already waiting`,
          "answer-waiting",
        );
      }
      this.#sql.exec(
        "INSERT INTO answer (suspension_id, value, created_at) VALUES (?, ?, ?)",
        suspensionId,
        JSON.stringify(value),
        this.#now(),
      );
    }, "store-answer");
  }

  /** The pending answer for `suspensionId`, if one was delivered. */
  answer(suspensionId: string): JsonValue | undefined {
    const row = this.#sql.exec("SELECT value FROM answer WHERE suspension_id = ?", suspensionId)[0];
    if (!row) return undefined;
    return this.#parseJson(String(row.value), z.unknown(), "answer") as JsonValue;
  }

  #checkExecution(execution: number): void {
    const row = this.#runRow();
    if (row.status !== "running" || row.execution !== execution) {
      throw new ExecutorLostError(
        `Cannot write to run "${row.id}": this executor no longer holds it (it is ${row.status})`,
      );
    }
  }

  #runRow(): z.infer<typeof RunRowSchema> {
    const rows = this.#sql.exec("SELECT * FROM run");
    if (rows.length !== 1) {
      throw new WorkflowDatabaseCorruptError(`Cannot read ${this.#where}: it holds no run record`);
    }
    return this.#parseRow(rows[0], RunRowSchema, "run record");
  }

  #parseRow<T>(row: SqlRow, schema: Schema<T>, what: string): T {
    const parsed = schema.safeParse(row);
    if (!parsed.success) {
      throw new WorkflowDatabaseCorruptError(
        `Cannot read ${this.#where}: its ${what} is damaged (${
          parsed.error.issues[0].path.join(".") || "row"
        })`,
      );
    }
    return parsed.data;
  }

  #parseJson<T>(text: string, schema: Schema<T>, what: string): T {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      throw new WorkflowDatabaseCorruptError(`Cannot read ${this.#where}: its ${what} is not JSON`);
    }
    return this.#parseRow(raw as SqlRow, schema, what);
  }
}

/** Refuses to cancel a run in `status`: only suspended or interrupted runs can be cancelled. */
export function checkCancellable(id: string, status: RunStatus): void {
  if (status === "suspended" || status === "interrupted") return;
  throw new RunStateError(
    `Cannot cancel run "${id}": it is ${status}; only suspended or interrupted runs can be cancelled`,
  );
}

function sha256Label(source: RetainedSource): string {
  return sha256Hex(source.text);
}
