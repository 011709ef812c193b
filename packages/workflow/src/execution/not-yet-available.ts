/**
 * Until the Workspace lands, a workflow run has no filesystem and no shell:
 * `<File>`, `<Glob>`, `<Dir>` and exec blocks are refused rather than touching
 * the host disk. `start` refuses such a document before creating anything
 * (`checkWorkflowSupport`); these providers are the second line.
 *
 * @module
 */
import {
  DocumentError,
  EffectRefusal,
  type Part,
  type Program,
  type Providers,
  walkElements,
} from "@xmd/core";

/** An effect workflow runs cannot perform yet. */
export class NotAvailableInWorkflowError extends EffectRefusal {
  override name = "NotAvailableInWorkflowError";
}

const WHAT = "is not available in workflow runs yet (it needs the run's Workspace)";

/** Refuses a program that uses the filesystem or the shell, at the first such place. */
export function checkWorkflowSupport(program: Program): void {
  for (const document of [program.root, ...program.components.values()]) {
    const refuse = (name: string, position: DocumentError["position"]) => {
      throw new DocumentError(
        `${name} ${WHAT}: run this document with xmd run instead`,
        position,
      );
    };
    const visitParts = (parts: readonly Part[]) => {
      for (const part of parts) {
        if (part.kind === "code") refuse(`A ${part.code.lang} exec block`, part.code.position);
      }
    };
    visitParts(document.parts);
    walkElements(document.parts, (element) => {
      if (["File", "Glob", "Dir"].includes(element.name)) {
        refuse(`<${element.name}>`, element.position);
      }
      visitParts(element.children);
    });
  }
}

/** Providers whose every filesystem and shell call is refused. */
export function notYetAvailableProviders(): Pick<Providers, "fs" | "shell"> {
  const refuse = (what: string) => () =>
    Promise.reject(new NotAvailableInWorkflowError(`${what} ${WHAT}`));
  return {
    fs: {
      readText: refuse("Reading a file"),
      writeText: refuse("Writing a file"),
      glob: refuse("Listing files"),
    },
    shell: { run: refuse("Running a shell block") },
  };
}
