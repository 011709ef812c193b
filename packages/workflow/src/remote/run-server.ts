/**
 * The server side of the remote protocol: a run's Durable Object handling
 * frames, as plain synchronous code over `SqlSeam`, `RunStore` and the
 * object store (no Cloudflare API), so one code path runs over node:sqlite
 * in tests and in workerd.
 *
 * Invariants:
 * - Ownership is held in memory: the connection whose `hello
 *   {role:"executor"}` arrived while no owner was connected owns the run
 *   until it closes; each acquisition counts one more epoch in
 *   `xmd_remote`. No lease, no timer, no takeover: a second executor gets
 *   `run.busy` and nothing changes. Readers may read and answer.
 * - A `running` run found by a new owner is stale (its executor's socket
 *   closed) and is closed `interrupted` (`crashed`) in the acquisition's
 *   transaction.
 * - Order, role and ownership are checked in memory before any SQL; the
 *   expected frontier is checked inside the mutation's single transaction.
 * - A frame that is malformed or refused gets one `error` reply and changes
 *   nothing (a refused commit keeps the objects staged before it); no
 *   thrown value escapes `receive`, and a reply never echoes a value.
 * - The committed root's hard-link groups are read from `xmd_remote` once
 *   and then kept in memory (the server is its database's only writer):
 *   replaced only after a commit that stores new ones has committed,
 *   forgotten by `delete`. A commit is checked against them without a read.
 * - Chunks go ahead in their own small transactions, invisible until a
 *   committed root reaches them; objects staged with `put-objects` live in
 *   the connection's memory, at most `MAX_STAGED_BYTES`, until a commit
 *   stores them.
 *
 * @module
 */
import {
  type JournalEvent,
  JournalEventSchema,
  type JsonValue,
  sha256Hex,
} from "@xmd/core/protocol";
import * as z from "zod";
import { WorkflowDatabaseCorruptError } from "../contracts/workflow-errors.ts";
import type { SqlSeam } from "../sql/sql-seam.ts";
import {
  initializeSchema,
  isEmptyDatabase,
  recognizeSchema,
  TABLES,
  upgradeSchema,
} from "../store/schema.ts";
import { RunStore } from "../store/run-store.ts";
import type { HardLinkGroups } from "../workspace/hard-links.ts";
import { readObjectText } from "../workspace/object-store.ts";
import type { Sha256 } from "../workspace/root-format.ts";
import { checkLinks, checkObjects, checkReachable, storeObjects } from "./commit-objects.ts";
import {
  decodeMessage,
  encodeReply,
  type Frontier,
  MAX_CHUNK_BYTES,
  MAX_MESSAGE_BYTES,
  MAX_STAGED_BYTES,
  parseRequest,
  type Reply,
  type Request,
  type RequestBody,
  requestIdOf,
  type RunSnapshot,
  type SentObject,
} from "./frames.ts";
import { checkNewRun } from "./new-run-checks.ts";
import { refusalReason, remoteErrorCode, RemoteProtocolError } from "./remote-protocol-error.ts";
import {
  type Admission,
  checkAdmission,
  createRemoteTable,
  nextEpoch,
  readRemoteLinks,
  readRemoteRow,
  REMOTE_TABLE,
  storeLinks,
} from "./remote-table.ts";
import { checkRow } from "./row-limit.ts";

/** How a run server is set up. */
export interface RunServerOptions {
  /** Names the database in messages (default "this run's Durable Object"). */
  where?: string;
  /** The clock, in milliseconds. */
  now?: () => number;
  /** SHA-256 as hex (a runtime's native one names everything the same). */
  sha256?: Sha256;
}

/** Requests a reader may send; an executor may send every request. */
const READER_REQUESTS: ReadonlySet<Request["type"]> = new Set([
  "read-run",
  "read-events",
  "get-objects",
  "get-chunks",
  "answer",
]);

/** Room kept in a reply for its header's envelope beside the values it lists. */
const REPLY_MARGIN = 64 * 1024;

const FrontierRowSchema = z.object({
  execution: z.number().int().nonnegative(),
  root: z.string().regex(/^[0-9a-f]{64}$/),
  events: z.number().int().nonnegative(),
}).strict();
const EventRowSchema = z.object({
  seq: z.number().int().positive(),
  execution: z.number().int().positive(),
  body: z.string(),
  root: z.string().regex(/^[0-9a-f]{64}$/),
  created_at: z.number().int(),
});
const ChunkRowSchema = z.object({ data: z.instanceof(Uint8Array) });

/** One run's frame handling; one per Durable Object. */
export class RunServer {
  readonly #sql: SqlSeam;
  readonly #store: RunStore;
  readonly #admission: Admission;
  readonly #where: string;
  readonly #sha256: Sha256;
  /** Why the database cannot be served (found when the server opened it), if it cannot. */
  readonly #problem: RemoteProtocolError | undefined;
  #owner: RunConnection | undefined;
  /** The committed root's hard-link groups, once read (see `#storedLinks`). */
  #links: HardLinkGroups | undefined;

  /**
   * Opens the run database behind `sql` for `admission`: an empty one is
   * initialized (schema version 1 and `xmd_remote`, atomically); any other
   * is recognized first. One that is damaged, foreign, newer or bound to
   * another admission is left unchanged and every frame is refused with
   * its code.
   */
  constructor(sql: SqlSeam, admission: Admission, options: RunServerOptions = {}) {
    this.#sql = sql;
    this.#admission = admission;
    this.#where = options.where ?? "this run's Durable Object";
    this.#sha256 = options.sha256 ?? sha256Hex;
    this.#store = new RunStore(sql, this.#where, options.now);
    this.#problem = this.#open();
  }

  /**
   * Why the database cannot be served, found when the server opened it
   * (`run.admission` for a database bound to another admission), if it cannot.
   */
  get problem(): RemoteProtocolError | undefined {
    return this.#problem;
  }

  /** A new connection (one WebSocket); it must say `hello` first. */
  connect(): RunConnection {
    return new RunConnection(this);
  }

  #open(): RemoteProtocolError | undefined {
    try {
      if (isEmptyDatabase(this.#sql)) {
        initializeSchema(this.#sql, () => createRemoteTable(this.#sql, this.#admission));
      }
      recognizeSchema(this.#sql, this.#where);
      checkAdmission(readRemoteRow(this.#sql, this.#where).admission, this.#admission, this.#where);
      // The Durable Object is the database's only writer: a version-1 one becomes version 2
      // before anything is served (its tables are the same).
      upgradeSchema(this.#sql);
      return undefined;
    } catch (error) {
      return refusal(error);
    }
  }

  /** Handles one message from `connection`; returns the reply to send. */
  handle(connection: RunConnection, message: Uint8Array | ArrayBuffer | string): Uint8Array {
    if (typeof message === "string") {
      return errorReply(
        null,
        new RemoteProtocolError("protocol.text", "Cannot read a text message: frames are binary"),
      );
    }
    let id: number | null = null;
    try {
      const bytes = message instanceof Uint8Array ? message : new Uint8Array(message);
      const { header, payload } = decodeMessage(bytes);
      id = requestIdOf(header);
      const { request } = parseRequest(header, payload);
      return this.#dispatch(connection, request, payload);
    } catch (error) {
      return errorReply(id, refusal(error));
    }
  }

  /** Ends `connection`: its ownership, if it held the run, and what it staged. */
  release(connection: RunConnection): void {
    if (this.#owner === connection) this.#owner = undefined;
  }

  #dispatch(connection: RunConnection, request: Request, payload: Uint8Array): Uint8Array {
    if (request.type === "ping") return encodeReply({ v: 1, re: request.id, type: "ping" });
    if (this.#problem) throw this.#problem;
    if (request.type === "hello") return this.#hello(connection, request);
    if (connection.role === undefined) {
      throw new RemoteProtocolError(
        "protocol.order",
        `Cannot handle ${request.type}: say hello first`,
      );
    }
    if (connection.role === "reader" && !READER_REQUESTS.has(request.type)) {
      throw new RemoteProtocolError(
        "protocol.role",
        `Cannot handle ${request.type}: a reader may only read and answer`,
      );
    }
    if (connection.role === "executor" && this.#owner !== connection) {
      throw new RemoteProtocolError("executor.lost", "This connection no longer holds the run");
    }
    const re = request.id;
    switch (request.type) {
      case "read-run":
        return encodeReply({ v: 1, re, type: "read-run", run: this.#snapshot() });
      case "read-events":
        return encodeReply({ v: 1, re, type: "read-events", events: this.#events(request) });
      case "get-objects":
        return encodeReply({ v: 1, re, type: "get-objects", ...this.#objects(request.hashes) });
      case "get-chunks":
        return this.#chunks(re, request.hashes);
      case "create":
        return encodeReply({ v: 1, re, type: "create", frontier: this.#create(request) });
      case "begin":
        return encodeReply({ v: 1, re, type: "begin", frontier: this.#begin(request.expected) });
      case "put-chunks":
        return encodeReply({
          v: 1,
          re,
          type: "put-chunks",
          stored: this.#putChunks(request, payload),
        });
      case "put-objects":
        return encodeReply({
          v: 1,
          re,
          type: "put-objects",
          staged: this.#stage(connection, request.objects),
        });
      case "commit":
        return encodeReply({
          v: 1,
          re,
          type: "commit",
          ...this.#commit(connection, request, payload),
        });
      case "settle":
        return encodeReply({ v: 1, re, type: "settle", frontier: this.#settle(request) });
      case "answer":
        this.#answer(request.suspensionId, request.value);
        return encodeReply({ v: 1, re, type: "answer" });
      case "cancel":
        this.#existing();
        this.#store.cancel();
        return encodeReply({ v: 1, re, type: "cancel" });
      case "delete":
        this.#delete();
        return encodeReply({ v: 1, re, type: "delete" });
    }
  }

  #hello(connection: RunConnection, request: Extract<Request, { type: "hello" }>): Uint8Array {
    if (connection.role !== undefined) {
      throw new RemoteProtocolError("protocol.order", "Cannot say hello twice on one connection");
    }
    if (request.role === "reader") {
      connection.role = "reader";
      return encodeReply({
        v: 1,
        re: request.id,
        type: "hello",
        run: this.#admission.runId,
        role: "reader",
        epoch: null,
        frontier: this.#frontier(),
      });
    }
    if (this.#owner !== undefined) {
      throw new RemoteProtocolError(
        "run.busy",
        "Cannot acquire the run: another executor holds it",
      );
    }
    const epoch = this.#sql.transaction(() => {
      const epoch = nextEpoch(this.#sql);
      if (this.#store.hasRun()) this.#store.recoverStale();
      return epoch;
    }, "recover-stale");
    this.#owner = connection;
    connection.role = "executor";
    connection.epoch = epoch;
    return encodeReply({
      v: 1,
      re: request.id,
      type: "hello",
      run: this.#admission.runId,
      role: "executor",
      epoch,
      frontier: this.#frontier(),
    });
  }

  /** The committed frontier, or null before the run exists. */
  /**
   * The committed frontier in one statement (a Durable Object pays for each
   * one), parsed like every stored row; `null` before the run exists. The
   * current root is the last event's (the run row's before any event).
   */
  #frontier(): Frontier | null {
    const rows = this.#sql.exec(
      "SELECT execution, coalesce((SELECT root FROM event ORDER BY seq DESC LIMIT 1), root) " +
        "AS root, (SELECT coalesce(max(seq), 0) FROM event) AS events FROM run",
    );
    if (rows.length === 0) return null;
    const row = FrontierRowSchema.safeParse(rows[0]);
    if (rows.length !== 1 || !row.success) throw this.#damaged("run record");
    return row.data;
  }

  #existing(): Frontier {
    const frontier = this.#frontier();
    if (frontier === null) throw new RemoteProtocolError("run.not_found", "There is no run yet");
    return frontier;
  }

  /** Refuses unless the committed frontier is `expected` (inside the caller's transaction). */
  #checkFrontier(expected: Frontier): void {
    const current = this.#existing();
    if (
      current.execution !== expected.execution || current.events !== expected.events ||
      current.root !== expected.root
    ) {
      throw new RemoteProtocolError(
        "frontier.stale",
        "Cannot change the run: its committed frontier is not the one expected",
      );
    }
  }

  #snapshot(): RunSnapshot | null {
    const frontier = this.#frontier();
    if (frontier === null) return null;
    const answers = this.#sql.exec("SELECT suspension_id FROM answer ORDER BY suspension_id")
      .map((row) => {
        const suspensionId = String(row.suspension_id);
        return { suspensionId, value: this.#store.answer(suspensionId) as JsonValue };
      });
    return {
      record: this.#store.record(),
      frontier,
      props: this.#store.props() as Record<string, JsonValue>,
      sources: this.#store.sources(),
      executions: this.#store.executions(),
      pending: this.#store.pendingSuspension(),
      answers,
      links: readRemoteRow(this.#sql, this.#where).links.map((group) => [...group]),
    };
  }

  /** One page of events from `from`, as many as fit one message (at least one). */
  #events(request: RequestBody<"read-events">) {
    this.#existing();
    const rows = this.#sql.exec(
      "SELECT seq, execution, body, root, created_at FROM event WHERE seq >= ? ORDER BY seq LIMIT ?",
      request.from,
      request.limit,
    );
    const events: {
      id: number;
      execution: number;
      at: number;
      root: string;
      event: JournalEvent;
    }[] = [];
    let size = REPLY_MARGIN;
    for (const raw of rows) {
      const row = EventRowSchema.safeParse(raw);
      if (!row.success) throw this.#damaged("journal");
      size += row.data.body.length * 3 + 200;
      if (events.length > 0 && size > MAX_MESSAGE_BYTES) break;
      const event = JournalEventSchema.safeParse(parseJson(row.data.body));
      if (!event.success) throw this.#damaged(`journal event ${row.data.seq}`);
      events.push({
        id: row.data.seq,
        execution: row.data.execution,
        at: row.data.created_at,
        root: row.data.root,
        event: event.data,
      });
    }
    return events;
  }

  /** The objects named, in order, as many as fit one message; `served` says how many. */
  #objects(hashes: readonly string[]) {
    const objects: { hash: string; text: string }[] = [];
    const missing: string[] = [];
    let size = REPLY_MARGIN;
    let served = 0;
    for (const hash of hashes) {
      const text = readObjectText(this.#sql, hash, this.#where, this.#sha256);
      if (text === undefined) missing.push(hash);
      else {
        size += text.length * 3 + 100;
        if (served > 0 && size > MAX_MESSAGE_BYTES) break;
        objects.push({ hash, text });
      }
      served++;
    }
    return { objects, missing, served };
  }

  #chunks(re: number, hashes: readonly string[]): Uint8Array {
    const chunks: { hash: string; length: number }[] = [];
    const missing: string[] = [];
    const parts: Uint8Array[] = [];
    for (const hash of hashes) {
      const raw = this.#sql.exec("SELECT data FROM ws_chunk WHERE hash = ?", hash)[0];
      if (raw === undefined) {
        missing.push(hash);
        continue;
      }
      const row = ChunkRowSchema.safeParse(raw);
      if (
        !row.success || row.data.data.length > MAX_CHUNK_BYTES ||
        this.#sha256(row.data.data) !== hash
      ) {
        throw new WorkflowDatabaseCorruptError(
          `Cannot read ${this.#where}: Workspace chunk ${
            hash.slice(0, 12)
          } does not match its hash`,
        );
      }
      chunks.push({ hash, length: row.data.data.length });
      parts.push(row.data.data);
    }
    const payload = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
    let offset = 0;
    for (const part of parts) {
      payload.set(part, offset);
      offset += part.length;
    }
    return encodeReply({ v: 1, re, type: "get-chunks", chunks, missing }, payload);
  }

  #create(request: RequestBody<"create">): Frontier {
    if (this.#store.hasRun()) {
      throw new RemoteProtocolError("run.exists", "Cannot create the run: it exists");
    }
    checkNewRun(request.run, this.#admission.runId);
    this.#store.create(request.run);
    return this.#existing();
  }

  #begin(expected: Frontier): Frontier {
    return this.#sql.transaction(() => {
      this.#checkFrontier(expected);
      this.#store.beginExecution(["suspended", "interrupted"]);
      return this.#existing();
    }, "begin-execution");
  }

  #putChunks(request: RequestBody<"put-chunks">, payload: Uint8Array): number {
    this.#existing();
    const chunks = this.#verifiedChunks(request.chunks, payload);
    return this.#sql.transaction(() => this.#storeChunks(chunks));
  }

  /** The chunks a frame's `headers` name in its `payload`, each checked against its name. */
  #verifiedChunks(
    headers: readonly { hash: string; length: number }[],
    payload: Uint8Array,
  ): { hash: string; data: Uint8Array }[] {
    const chunks: { hash: string; data: Uint8Array }[] = [];
    let offset = 0;
    for (const [i, chunk] of headers.entries()) {
      const data = payload.subarray(offset, offset + chunk.length);
      offset += chunk.length;
      if (this.#sha256(data) !== chunk.hash) {
        throw new RemoteProtocolError(
          "chunk.digest",
          `Cannot store chunk ${i}: it does not hash to its name`,
        );
      }
      chunks.push({ hash: chunk.hash, data });
    }
    return chunks;
  }

  /** Stores `chunks` (within the caller's transaction); returns how many were new. */
  #storeChunks(chunks: readonly { hash: string; data: Uint8Array }[]): number {
    let stored = 0;
    for (const chunk of chunks) {
      stored += this.#sql.exec(
        "INSERT OR IGNORE INTO ws_chunk (hash, data) VALUES (?, ?) RETURNING hash",
        chunk.hash,
        chunk.data.slice(),
      ).length;
    }
    return stored;
  }

  /** Stages `objects` for the connection's next commit, each checked on arrival; returns the bytes staged. */
  #stage(connection: RunConnection, objects: readonly SentObject[]): number {
    this.#existing();
    let bytes = connection.stagedBytes;
    const staged = new Map(connection.staged);
    for (const object of objects) {
      if (staged.has(object.hash)) continue;
      bytes += sentSize(object);
      if (bytes > MAX_STAGED_BYTES) {
        throw new RemoteProtocolError(
          "limit.staged",
          `Cannot stage more objects: an acquisition stages at most ${MAX_STAGED_BYTES} bytes ahead of a commit`,
        );
      }
      staged.set(object.hash, object);
    }
    checkObjects(this.#sql, [...staged.values()], this.#where, this.#sha256);
    connection.staged = staged;
    connection.stagedBytes = bytes;
    return bytes;
  }

  #commit(
    connection: RunConnection,
    request: RequestBody<"commit">,
    payload: Uint8Array,
  ): { frontier: Frontier; eventId: number } {
    checkRow(JSON.stringify(request.event), "the event");
    const chunks = this.#verifiedChunks(request.chunks ?? [], payload);
    const sent = new Map(connection.staged);
    for (const object of request.objects ?? []) sent.set(object.hash, object);
    const result = this.#sql.transaction(() => {
      this.#checkFrontier(request.expected);
      // Chunks carried by the commit land with it, or not at all.
      this.#storeChunks(chunks);
      const objects = checkObjects(this.#sql, [...sent.values()], this.#where, this.#sha256);
      const carried = new Map(chunks.map((chunk) => [chunk.hash, chunk.data.length]));
      checkReachable(this.#sql, objects, request.root, carried);
      const links = request.links ?? this.#storedLinks();
      checkLinks(this.#sql, objects, request.root, links, this.#where, this.#sha256);
      storeObjects(this.#sql, objects);
      if (request.links) storeLinks(this.#sql, request.links);
      // Inside this transaction, which rolls back whole if the append throws: no savepoint.
      const eventId = this.#store.appendWithin(
        request.expected.execution,
        request.event,
        request.root,
      );
      // The event just appended is the frontier's last, at the root it was appended with.
      const frontier = {
        execution: request.expected.execution,
        events: eventId,
        root: request.root,
      };
      return { frontier, eventId };
    }, "append");
    connection.staged = new Map();
    connection.stagedBytes = 0;
    // Only once they are committed: a refused commit leaves the stored groups as they were.
    if (request.links) this.#links = request.links;
    return result;
  }

  /**
   * The hard-link groups of the committed root: read (and parsed) once, then
   * kept, as this server is its database's only writer and replaces them
   * only when a commit that stores new ones has committed.
   */
  #storedLinks(): HardLinkGroups {
    this.#links ??= readRemoteLinks(this.#sql, this.#where);
    return this.#links;
  }

  #settle(request: RequestBody<"settle">): Frontier {
    return this.#sql.transaction(() => {
      this.#checkFrontier(request.expected);
      const reason = request.stopReason;
      const question = reason?.kind === "journal" ? this.#isQuestion(reason.eventId) : undefined;
      const fits = reason?.kind === "journal"
        ? question !== undefined && (request.status !== "suspended" || question)
        : request.status !== "suspended";
      if (!fits) {
        throw new RemoteProtocolError(
          "settle.invalid",
          "Cannot settle the run: a suspension must name a question, and a journal stop reason an existing event",
        );
      }
      this.#store.settle(request.expected.execution, request.status, reason);
      return this.#existing();
    }, "settle");
  }

  /** Whether event `id` is a question; undefined when there is no such event. */
  #isQuestion(id: number): boolean | undefined {
    const row = this.#sql.exec("SELECT body FROM event WHERE seq = ?", id)[0];
    if (row === undefined) return undefined;
    const event = JournalEventSchema.safeParse(parseJson(String(row.body)));
    if (!event.success) throw this.#damaged(`journal event ${id}`);
    return event.data.type === "yield" && event.data.description.type === "suspension_request";
  }

  #answer(suspensionId: string, value: JsonValue): void {
    this.#existing();
    checkRow(JSON.stringify(value), "the answer");
    this.#store.storeAnswer(suspensionId, value);
  }

  /** Deletes the run: every table, then an empty schema bound to the same admission and epoch. */
  #delete(): void {
    this.#existing();
    // The new schema holds no groups; they are read again when next needed.
    this.#links = undefined;
    this.#sql.transaction(() => {
      const { epoch } = readRemoteRow(this.#sql, this.#where);
      const ours = new Set([...TABLES.map((table) => table.name), REMOTE_TABLE.name]);
      for (const row of this.#sql.exec("SELECT name FROM sqlite_master WHERE type = 'table'")) {
        const name = String(row.name);
        if (ours.has(name)) this.#sql.exec(`DROP TABLE "${name}"`);
      }
      initializeSchema(this.#sql, () => {
        createRemoteTable(this.#sql, this.#admission);
        this.#sql.exec("UPDATE xmd_remote SET epoch = ?", epoch);
      });
    });
  }

  #damaged(what: string): WorkflowDatabaseCorruptError {
    return new WorkflowDatabaseCorruptError(`Cannot read ${this.#where}: its ${what} is damaged`);
  }
}

/** One WebSocket's side of the protocol: its role, its epoch, what it staged. */
export class RunConnection {
  readonly #server: RunServer;
  /** Its role, once it said hello. */
  role: "executor" | "reader" | undefined;
  /** The acquisition's epoch, for an executor. */
  epoch: number | undefined;
  /** Objects staged for its next commit. */
  staged: ReadonlyMap<string, SentObject> = new Map();
  /** Their size. */
  stagedBytes = 0;

  /** A connection to `server` (use `RunServer.connect`). */
  constructor(server: RunServer) {
    this.#server = server;
  }

  /** Handles one received message and returns the reply to send (never throws). */
  receive(message: Uint8Array | ArrayBuffer | string): Uint8Array {
    return this.#server.handle(this, message);
  }

  /** The socket closed: ownership, if held, ends now. */
  close(): void {
    this.staged = new Map();
    this.stagedBytes = 0;
    this.#server.release(this);
  }
}

function sentSize(object: SentObject): number {
  return "text" in object ? object.text.length : JSON.stringify(object).length;
}

/** The reply for a refusal. */
function errorReply(re: number | null, error: RemoteProtocolError): Uint8Array {
  const reply: Reply = { v: 1, re, type: "error", code: error.code, message: error.message };
  if (error.reason !== undefined) reply.reason = error.reason;
  return encodeReply(reply);
}

/** `error` as a refusal that may cross the wire: its code, and its message unless internal. */
function refusal(error: unknown): RemoteProtocolError {
  if (error instanceof RemoteProtocolError) return error;
  const code = remoteErrorCode(error);
  if (code === "internal") {
    return new RemoteProtocolError(
      "internal",
      "The run's Durable Object failed to handle the frame",
      {
        cause: error,
      },
    );
  }
  return new RemoteProtocolError(code, error instanceof Error ? error.message : String(error), {
    cause: error,
    reason: refusalReason(error),
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
