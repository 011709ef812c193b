/**
 * A documented filesystem refusal, with its POSIX code. It is journaled as an
 * `err` result (whose `code` is the POSIX code) and replays as the same error.
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

/** The stable code of a filesystem refusal: `fs.` and its POSIX code in lowercase. */
export type FileSystemRefusalCode = `fs.${Lowercase<FileSystemErrorCode>}`;

/** A filesystem operation refused with a POSIX code. The message names the logical path, never content. */
export class FileSystemError extends EffectRefusal {
  /** Always `FileSystemError`: the name a journaled refusal is recorded and replayed by. */
  override name = "FileSystemError";
  /** Its stable code, `fs.enoent` for `ENOENT`. */
  override readonly code: FileSystemRefusalCode;
  /** The POSIX code, which the journal records as the refusal's `code`. */
  readonly posix: FileSystemErrorCode;
  /** The logical path the operation was about. */
  readonly path: string;

  /** A refusal of an operation on `path` with POSIX code `posix`; `message` names the path, never content. */
  constructor(posix: FileSystemErrorCode, path: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.posix = posix;
    this.code = `fs.${posix.toLowerCase() as Lowercase<FileSystemErrorCode>}`;
    this.path = path;
  }
}
