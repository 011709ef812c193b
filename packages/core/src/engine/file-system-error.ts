/**
 * A documented filesystem refusal, with its POSIX code. It is journaled as an
 * `err` result and replays as the same error.
 *
 * @module
 */
import { EffectRefusal } from "./effect-refusal.ts";

/** POSIX error codes a provider may report. */
export type FileSystemErrorCode =
  | "ENOENT"
  | "EEXIST"
  | "ENOTDIR"
  | "EISDIR"
  | "ENOTEMPTY"
  | "EACCES"
  | "ELOOP"
  | "EINVAL"
  | "EPERM"
  | "ENAMETOOLONG";

/** A filesystem operation refused with a POSIX code. The message names the logical path, never content. */
export class FileSystemError extends EffectRefusal {
  /** Always `FileSystemError`: the name a journaled refusal is recorded and replayed by. */
  override name = "FileSystemError";
  /** The POSIX code. */
  declare readonly code: FileSystemErrorCode;
  /** The logical path the operation was about. */
  readonly path: string;

  /** A refusal of an operation on `path`; `message` names the path, never content. */
  constructor(code: FileSystemErrorCode, path: string, message: string, options?: ErrorOptions) {
    super(message, { ...options, code });
    this.path = path;
  }
}
