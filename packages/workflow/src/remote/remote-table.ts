/**
 * The table only a remote run's database has: `xmd_remote`, one row binding
 * the database to its admission (run id, issue node id, repository id),
 * counting acquisitions (the epoch), and holding the current root's
 * hard-link groups (root format 1 cannot hold them).
 *
 * Invariants:
 * - It is created in the same transaction as schema version 1, before the
 *   version row, so a database is either empty, complete with it, or
 *   recognizably partial.
 * - It is recognized like the rest of the schema: its exact definition and
 *   one row that parses, else `WorkflowDatabaseCorruptError`; a row bound to
 *   another admission is refused with `RemoteProtocolError`
 *   (`run.admission`). Nothing is repaired or rebound.
 *
 * @module
 */
import * as z from "zod";
import { WorkflowDatabaseCorruptError } from "../contracts/workflow-errors.ts";
import type { SqlSeam } from "../sql/sql-seam.ts";
import { type HardLinkGroups, HardLinkGroupsSchema } from "../workspace/hard-links.ts";
import { RemoteProtocolError } from "./remote-protocol-error.ts";

/** Who a remote run was admitted for; the Worker derives it, never the client. */
export interface Admission {
  /** The run id (derived from the issue's identity: its GitHub host and node id). */
  runId: string;
  /** The GitHub host the issue lives on (the deployment's `XMD_GITHUB_HOST`). */
  githubHost: string;
  /** The GitHub issue's node id. */
  issueNodeId: string;
  /** The repository the issue was admitted in. */
  repositoryId: string;
}

/** The definition of `xmd_remote`. */
export const REMOTE_TABLE = {
  name: "xmd_remote",
  sql: "CREATE TABLE xmd_remote (singleton INTEGER PRIMARY KEY CHECK (singleton = 1), " +
    "run_id TEXT NOT NULL, github_host TEXT NOT NULL, issue_node_id TEXT NOT NULL, " +
    "repository_id TEXT NOT NULL, " +
    "epoch INTEGER NOT NULL, links TEXT NOT NULL) STRICT",
} as const;

const RowSchema = z.object({
  run_id: z.string().min(1),
  github_host: z.string().min(1),
  issue_node_id: z.string().min(1),
  repository_id: z.string().min(1),
  epoch: z.number().int().nonnegative(),
  links: z.string(),
}).strict();

/** The `xmd_remote` row, parsed. */
export interface RemoteRow {
  /** The admission the database is bound to. */
  admission: Admission;
  /** How many acquisitions there have been. */
  epoch: number;
  /** The current root's hard-link groups. */
  links: HardLinkGroups;
}

/** Creates `xmd_remote` bound to `admission` (inside schema initialization's transaction). */
export function createRemoteTable(sql: SqlSeam, admission: Admission): void {
  sql.exec(REMOTE_TABLE.sql);
  sql.exec(
    "INSERT INTO xmd_remote " +
      "(singleton, run_id, github_host, issue_node_id, repository_id, epoch, links) " +
      "VALUES (1, ?, ?, ?, ?, 0, '[]')",
    admission.runId,
    admission.githubHost,
    admission.issueNodeId,
    admission.repositoryId,
  );
}

/** Reads and checks the `xmd_remote` row; `where` names the database in messages. */
export function readRemoteRow(sql: SqlSeam, where: string): RemoteRow {
  const table = sql.exec(
    "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?",
    REMOTE_TABLE.name,
  )[0];
  if (table?.sql !== REMOTE_TABLE.sql) {
    throw new WorkflowDatabaseCorruptError(
      `Cannot open ${where}: table ${REMOTE_TABLE.name} is missing or altered. It is left as it is`,
    );
  }
  const rows = sql.exec(
    "SELECT run_id, github_host, issue_node_id, repository_id, epoch, links FROM xmd_remote",
  );
  const row = rows.length === 1 ? RowSchema.safeParse(rows[0]) : undefined;
  const links = row?.success
    ? HardLinkGroupsSchema.safeParse(parseJson(row.data.links))
    : undefined;
  if (!row?.success || !links?.success) {
    throw new WorkflowDatabaseCorruptError(`Cannot open ${where}: its remote binding is damaged`);
  }
  return {
    admission: {
      runId: row.data.run_id,
      githubHost: row.data.github_host,
      issueNodeId: row.data.issue_node_id,
      repositoryId: row.data.repository_id,
    },
    epoch: row.data.epoch,
    links: links.data,
  };
}

const LinksRowSchema = z.object({ links: z.string() }).strict();

/**
 * The current root's hard-link groups alone, for a commit: the table itself
 * was recognized when the database was opened ({@linkcode readRemoteRow}),
 * and its row is parsed here like any stored value.
 */
export function readRemoteLinks(sql: SqlSeam, where: string): HardLinkGroups {
  const rows = sql.exec("SELECT links FROM xmd_remote");
  const row = rows.length === 1 ? LinksRowSchema.safeParse(rows[0]) : undefined;
  const links = row?.success
    ? HardLinkGroupsSchema.safeParse(parseJson(row.data.links))
    : undefined;
  if (!links?.success) {
    throw new WorkflowDatabaseCorruptError(`Cannot open ${where}: its remote binding is damaged`);
  }
  return links.data;
}

/**
 * Refuses a database (or a live Durable Object) bound to `bound` for
 * another admission than it: another run, or the same issue from another
 * repository (the same node id: a transfer since), in the same words
 * whether the object was live or opened its database anew.
 */
export function checkAdmission(bound: Admission, admission: Admission, where: string): void {
  if (
    bound.runId !== admission.runId || bound.githubHost !== admission.githubHost ||
    bound.issueNodeId !== admission.issueNodeId
  ) {
    throw new RemoteProtocolError("run.admission", `Cannot open ${where}: it holds another run`);
  }
  if (bound.repositoryId !== admission.repositoryId) {
    throw new RemoteProtocolError(
      "run.admission",
      `Cannot open ${where}: its issue was admitted in another repository and transferred since`,
    );
  }
}

/** Counts one more acquisition and returns its epoch (within the caller's transaction). */
export function nextEpoch(sql: SqlSeam): number {
  return Number(sql.exec("UPDATE xmd_remote SET epoch = epoch + 1 RETURNING epoch")[0].epoch);
}

/** Records the current root's hard-link groups (within the caller's transaction). */
export function storeLinks(sql: SqlSeam, links: HardLinkGroups): void {
  sql.exec("UPDATE xmd_remote SET links = ?", JSON.stringify(links));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
