/**
 * Reading documents from the host: the root document as the user named it,
 * and components beside it (by label, relative to the root's folder).
 *
 * Positions inside the engine and its journals name files by label (the
 * root's file name, a component's path from the root's folder), so a journal
 * does not depend on where a command ran. What the user reads names them as
 * the user typed the document (`docs/release.md:3:1`,
 * `docs/components/Note.md:2:1`), so a terminal or an editor can follow them.
 *
 * @module
 */
import {
  DocumentError,
  formatPropsHelp,
  loadProgram,
  type Program,
  type SourceReader,
} from "@xmd/core";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { UsageError } from "./usage-error.ts";

/** A root document read from disk. */
export interface HostDocument {
  /** The folder components resolve against. */
  folder: string;
  /** The label used in positions and journal names (its file name). */
  label: string;
  /** Its text. */
  text: string;
}

/** Reads the root document, refusing a missing or unreadable one with what to do. */
export async function readDocument(cwd: string, path: string): Promise<HostDocument> {
  const absolute = isAbsolute(path) ? path : resolve(cwd, path);
  try {
    return {
      folder: dirname(absolute),
      label: basename(absolute),
      text: await Deno.readTextFile(absolute),
    };
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new UsageError(`Cannot read document "${path}": no such file. Check the path`);
    }
    if (error instanceof Deno.errors.IsADirectory) {
      throw new UsageError(`Cannot read document "${path}": it is a directory. Name a .md file`);
    }
    if (error instanceof Deno.errors.PermissionDenied) {
      throw new UsageError(`Cannot read document "${path}": permission denied`);
    }
    throw error;
  }
}

/** Reads components relative to `folder`; a missing file is `undefined`. */
export function hostSourceReader(folder: string): SourceReader {
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

/** Reads the root document and loads its program (components beside it), checked. */
export async function loadHostProgram(
  cwd: string,
  path: string,
  target: string | undefined,
): Promise<Program> {
  const document = await readDocument(cwd, path);
  try {
    return await loadProgram(
      { file: document.label, text: document.text },
      hostSourceReader(document.folder),
      { target },
    );
  } catch (error) {
    throw typedDocumentError(path, error);
  }
}

/** A `DocumentError` positioned as the user typed the document `typed`; any other error as it is. */
export function typedDocumentError(typed: string, error: unknown): unknown {
  if (!(error instanceof DocumentError)) return error;
  const position = { ...error.position, file: typedFile(typed, error.position.file) };
  return new DocumentError(error.reason, position, { cause: error });
}

/**
 * The file a label names, as the user would type it: the root document's
 * label is `typed` itself, a component's is beside it.
 */
function typedFile(typed: string, label: string): string {
  return label === basename(typed) ? typed : join(dirname(typed), label);
}

/**
 * Rewrites the position a message starts with (`release.md:3:1: …`, as the
 * engine and the journal write it) to name the file as the user typed the
 * document; any other message is returned unchanged.
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

/** `<command> <document> --help`: the usage line and the document's props. */
export function documentHelp(
  usage: string,
  path: string,
  target: string | undefined,
  program: Program,
): string {
  return `Usage: ${usage} ${path}${target ? `#${target}` : ""}\n\nProps:\n${
    formatPropsHelp(program.root.props)
  }\n`;
}
