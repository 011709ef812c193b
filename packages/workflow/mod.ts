/**
 * `@xmd/workflow`: retained, resumable workflow runs. Provider-neutral
 * contracts live here; the local and Durable Object providers arrive in
 * their own entrypoints.
 *
 * @module
 */

/** The statuses a workflow run can be in (see the workflow spec). */
export const RUN_STATUSES = [
  "running",
  "suspended",
  "interrupted",
  "completed",
  "failed",
  "cancelled",
] as const;

/** A workflow run's status. */
export type RunStatus = typeof RUN_STATUSES[number];
