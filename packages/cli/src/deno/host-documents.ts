/**
 * Documents as the CLI reads them: through `@xmd/core/deno`'s reader, with a
 * document that cannot be read turned into a usage mistake that says what to
 * do, and the `--help` page of a document.
 *
 * @module
 */
import { formatPropsHelp, type Program } from "@xmd/core";
import { DocumentReadError, loadProgramFile } from "@xmd/core/deno";
import { UsageError } from "./usage-error.ts";

const ADVICE = {
  missing: "Check the path",
  directory: "Name a .md file",
  permission: undefined,
} as const;

/** Reads the root document and loads its program (components beside it), checked. */
export async function loadHostProgram(
  cwd: string,
  path: string,
  target: string | undefined,
): Promise<Program> {
  try {
    return await loadProgramFile(path, { cwd, target });
  } catch (error) {
    if (!(error instanceof DocumentReadError)) throw error;
    const advice = ADVICE[error.problem];
    throw new UsageError(advice ? `${error.message}. ${advice}` : error.message, { cause: error });
  }
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
