/**
 * Reading a document and its components from disk: the root document at the
 * path the caller names, and components beside it (by label, relative to the
 * root's folder).
 *
 * Invariant: positions inside the engine and its journals name files by
 * label (the root's file name, a component's path from the root's folder), so
 * a journal does not depend on where it was made. What a person reads names
 * them as the document was named (`docs/release.md:3:1`,
 * `docs/components/Note.md:2:1`), so a terminal or an editor can follow them:
 * {@linkcode loadProgramFile} positions its refusals that way, and
 * {@linkcode typedPositions} rewrites a later message the same way.
 *
 * @module
 */
import { XmdError } from "../errors/xmd-error.ts";
import { DocumentError } from "../document/document-error.ts";
import { loadProgram, type Program, type SourceReader } from "../document/load-program.ts";
import {
  basenameOf as basename,
  dirnameOf as dirname,
  isAbsolutePath as isAbsolute,
  joinPath as join,
  resolvePath as resolve,
} from "./posix-path.ts";

/** Why a root document could not be read. */
export type DocumentReadProblem = "missing" | "directory" | "permission";

/** The root document named cannot be read; the message names it as given and says why. */
export class DocumentReadError extends XmdError {
  /** The class name. */
  override name = "DocumentReadError";
  /** Its stable code. */
  readonly code = "document.unreadable";
  /** The path as the caller gave it. */
  readonly path: string;
  /** Why it cannot be read. */
  readonly problem: DocumentReadProblem;

  /** A refusal to read `path` for `problem`. */
  constructor(path: string, problem: DocumentReadProblem) {
    super(`Cannot read document "${path}": ${PROBLEM_TEXT[problem]}`);
    this.path = path;
    this.problem = problem;
  }
}

const PROBLEM_TEXT: Record<DocumentReadProblem, string> = {
  missing: "no such file",
  directory: "it is a directory",
  permission: "permission denied",
};

/** Where {@linkcode loadProgramFile} reads from and what it selects. */
export interface LoadProgramFileOptions {
  /** The folder a relative path starts from (default: the current working directory). */
  cwd?: string;
  /** The section to run (`Section/Sub`), if any. */
  target?: string;
}

/**
 * Reads the document at `path` and the components it uses (`Name.md`, then
 * `components/Name.md`, beside it) and loads its program, checked before
 * anything runs. A document that cannot be read is a
 * {@linkcode DocumentReadError}; a refusal of its content is a
 * `DocumentError` positioned in the file as `path` names it.
 *
 * @example Loading a document from a folder
 * ```ts
 * import assert from "node:assert/strict";
 * import { DocumentReadError, loadProgramFile } from "@xmd/core/deno";
 *
 * const folder = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${folder}/hi.md`, "# Hi\n\n<Note />\n");
 * await Deno.writeTextFile(`${folder}/Note.md`, "(a component)\n");
 * const program = await loadProgramFile("hi.md", { cwd: folder });
 * assert.deepEqual([...program.sources.keys()].sort(), ["Note.md", "hi.md"]);
 * await assert.rejects(loadProgramFile("gone.md", { cwd: folder }), DocumentReadError);
 * await Deno.remove(folder, { recursive: true });
 * ```
 */
export async function loadProgramFile(
  path: string,
  options: LoadProgramFileOptions = {},
): Promise<Program> {
  const absolute = isAbsolute(path) ? path : resolve(options.cwd ?? Deno.cwd(), path);
  const text = await readRoot(path, absolute);
  try {
    return await loadProgram(
      { file: basename(absolute), text },
      fileSourceReader(dirname(absolute)),
      { target: options.target },
    );
  } catch (error) {
    throw typedDocumentError(path, error);
  }
}

async function readRoot(path: string, absolute: string): Promise<string> {
  try {
    return await Deno.readTextFile(absolute);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) throw new DocumentReadError(path, "missing");
    if (error instanceof Deno.errors.IsADirectory) throw new DocumentReadError(path, "directory");
    if (error instanceof Deno.errors.PermissionDenied) {
      throw new DocumentReadError(path, "permission");
    }
    throw error;
  }
}

/** Reads components relative to `folder`; a missing file is `undefined`. */
function fileSourceReader(folder: string): SourceReader {
  return async (label) => {
    try {
      return await Deno.readTextFile(join(folder, label));
    } catch (error) {
      if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.IsADirectory) {
        return undefined;
      }
      throw error;
    }
  };
}

/**
 * A `DocumentError` positioned in the file as `typed` names the root document
 * (a component beside it); any other error is returned as it is.
 */
export function typedDocumentError(typed: string, error: unknown): unknown {
  if (!(error instanceof DocumentError)) return error;
  const position = { ...error.position, file: typedFile(typed, error.position.file) };
  return new DocumentError(error.reason, position, { cause: error });
}

/**
 * The file a label names, as the document was named: the root document's
 * label is `typed` itself, a component's is beside it.
 */
function typedFile(typed: string, label: string): string {
  return label === basename(typed) ? typed : join(dirname(typed), label);
}

/**
 * Rewrites the position a message starts with (`release.md:3:1: …`, as the
 * engine and the journal write it, for example a run's failure) to name the
 * file as `typed` names the root document of `program`; any other message is
 * returned unchanged.
 */
export function typedPositions(typed: string, program: Program): (message: string) => string {
  const labels = [...program.sources.keys()];
  return (message) => {
    const label = labels.find((label) =>
      message.startsWith(label) && /^:\d+:\d+: /.test(message.slice(label.length))
    );
    return label === undefined ? message : typedFile(typed, label) + message.slice(label.length);
  };
}
