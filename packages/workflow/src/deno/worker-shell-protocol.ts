/**
 * The messages between Worker Shell's host and its Worker. Every request from
 * the Worker carries the token of the effect it serves; the host refuses a
 * token that is not the current one, so a stale Worker reaches nothing.
 *
 * @module
 */
import { z } from "zod";

/** Filesystem operations the Worker may ask for. */
export const FS_OPS = [
  "readFile",
  "writeFile",
  "appendFile",
  "exists",
  "stat",
  "lstat",
  "mkdir",
  "readdir",
  "readdirTypes",
  "rm",
  "cp",
  "mv",
  "chmod",
  "symlink",
  "link",
  "readlink",
  "realpath",
] as const;

/** A filesystem operation name. */
export type FsOp = typeof FS_OPS[number];

/** Host → Worker: run one script. */
export interface RunMessage {
  /** Discriminant. */
  type: "run";
  /** The effect's token. */
  token: string;
  /** The script. */
  script: string;
  /** The working directory (absolute Workspace path). */
  cwd: string;
  /** The block's timeout in milliseconds. */
  timeoutMs: number;
}

/** Host → Worker: the answer to a filesystem request. */
export interface ReplyMessage {
  /** Discriminant. */
  type: "reply";
  /** The request id. */
  id: number;
  /** The result, when it succeeded. */
  value?: unknown;
  /** The POSIX refusal, when it failed. */
  error?: { code: string; message: string };
}

/** Worker → host messages, parsed strictly. */
export const WorkerMessageSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("fs"),
    token: z.string(),
    id: z.number().int().nonnegative(),
    op: z.enum(FS_OPS),
    args: z.array(z.unknown()).max(4),
  }).strict(),
  z.object({
    type: z.literal("output"),
    token: z.string(),
    stream: z.enum(["stdout", "stderr"]),
    data: z.string(),
  }).strict(),
  z.object({
    type: z.literal("done"),
    token: z.string(),
    exitCode: z.number().int(),
    stdout: z.string(),
    stderr: z.string(),
  }).strict(),
  z.object({
    type: z.literal("crash"),
    token: z.string(),
    message: z.string(),
  }).strict(),
]);

/** A message from the Worker. */
export type WorkerMessage = z.infer<typeof WorkerMessageSchema>;
