/**
 * What a workflow run can execute: every element, with `<File>`, `<Glob>` and
 * `<Dir>` on the run's Workspace and `sh`/`bash` exec blocks in Worker Shell.
 * Other block languages have no Workspace-bound interpreter: `start` refuses
 * them before creating anything, naming the block; nothing falls back to the
 * host.
 *
 * @module
 */
import type { Part, Program, ShellProvider } from "@xmd/core";
import { EffectRefusal } from "@xmd/core/protocol";
// Not the `@xmd/core` barrel: `@xmd/workflow`'s entry, which re-exports this
// module, then loads no engine, parser or expression compiler (MDX-82).
import { DocumentError, walkElements } from "@xmd/core/internal";

/** An effect this host cannot perform in a workflow run. */
export class NotAvailableInWorkflowError extends EffectRefusal {
  /** The class name, which journals record. */
  override name = "NotAvailableInWorkflowError";
  /** Its stable code. */
  override readonly code = "workflow.unavailable";
}

const SHELLS = new Set(["sh", "bash"]);

/** Refuses a program with an exec block Worker Shell cannot run, at the first such block. */
export function checkWorkflowSupport(program: Program): void {
  for (const code of execBlocks(program)) {
    if (!SHELLS.has(code.lang)) {
      throw new DocumentError(
        `A "${code.lang}" exec block cannot run in a workflow run: only sh and bash blocks run there (in Worker Shell)`,
        code.position,
      );
    }
  }
}

/** Whether the program (root or a component) has an exec block, which needs a shell. */
export function hasExecBlocks(program: Program): boolean {
  return !execBlocks(program).next().done;
}

/** Every exec block of the program, in document order, root first. */
function* execBlocks(program: Program): Generator<Extract<Part, { kind: "code" }>["code"]> {
  for (const document of [program.root, ...program.components.values()]) {
    const blocks: Extract<Part, { kind: "code" }>["code"][] = [];
    const visitParts = (parts: readonly Part[]) => {
      for (const part of parts) if (part.kind === "code") blocks.push(part.code);
    };
    visitParts(document.parts);
    walkElements(document.parts, (element) => visitParts(element.children));
    yield* blocks;
  }
}

/** A shell for hosts that have none: every block is refused. */
export function notYetAvailableShell(): ShellProvider {
  return {
    run: () =>
      Promise.reject(
        new NotAvailableInWorkflowError(
          "Running a shell block is not available on this host: it has no Worker Shell",
        ),
      ),
  };
}
