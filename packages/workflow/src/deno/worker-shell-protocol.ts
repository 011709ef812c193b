/**
 * The messages between Worker Shell's host and its interpreter process, each
 * a frame header (see worker-shell-frames.ts). Every request from the
 * interpreter carries the token of the effect it serves; the host refuses a
 * token that is not the current one, so a stale interpreter reaches nothing.
 * Bytes travel as the frame's payload: the content of `writeFile` and
 * `appendFile`, the value of a reply marked `bytes`, and an output's text
 * (UTF-8).
 *
 * @module
 */
import { lazySchema } from "@xmd/core/protocol";
import * as z from "zod/mini";
import { FS_OPS, type PathDirs } from "./worker-shell-ops.ts";

/** Host → interpreter: run one script. */
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
  /** The default `PATH`'s folders as the block starts. */
  dirs: PathDirs;
}

/** Host → interpreter: the answer to a filesystem request. */
export interface ReplyMessage {
  /** Discriminant. */
  type: "reply";
  /** The request id. */
  id: number;
  /** The result, when it succeeded and is not bytes. */
  value?: unknown;
  /** The result is the frame's payload (a file's content). */
  bytes?: true;
  /** The POSIX refusal, when it failed. */
  error?: { code: string; message: string };
  /**
   * The default `PATH`'s folders once a request that may change the
   * Workspace was applied (or refused): the Workspace as it stands until the
   * interpreter's next such request, since it is the only writer while its
   * block runs.
   */
  dirs?: PathDirs;
}

/** Interpreter → host messages, parsed strictly. */
export const WorkerMessageSchema = lazySchema(() =>
  z.discriminatedUnion("type", [
    z.strictObject({
      type: z.literal("fs"),
      token: z.string(),
      id: z.number().check(z.int(), z.nonnegative()),
      op: z.enum(FS_OPS),
      args: z.array(z.union([z.string(), z.number(), z.boolean()])).check(z.maxLength(3)),
    }),
    z.strictObject({
      type: z.literal("output"),
      token: z.string(),
      stream: z.enum(["stdout", "stderr"]),
    }),
    z.strictObject({
      type: z.literal("done"),
      token: z.string(),
      exitCode: z.number().check(z.int()),
    }),
    z.strictObject({
      type: z.literal("crash"),
      token: z.string(),
      message: z.string(),
    }),
  ])
);

/** A message from the interpreter. */
export type WorkerMessage = z.infer<typeof WorkerMessageSchema>;
