/**
 * Worker Shell's interpreter started by `xmd workflow start` before the
 * workflow command's own modules load (WF-190). Loading them (the local host,
 * the store, the journal's and the Workspace's zod schemas, `node:sqlite`)
 * takes tens of milliseconds, and the interpreter's process then needs about
 * 100 ms more to load just-bash before it can run the first block: started
 * here, from the dispatch, it loads while they do.
 *
 * Invariants:
 * - A guess that changes nothing else: the interpreter depends on no
 *   document, only on the heap limit, so the start either runs its first
 *   block in it or kills it and waits for its end (WF-131), whatever ends the
 *   command. A command line this does not plainly read as a local start of
 *   one regular file (an unknown option, `--help`, `--remote`, two paths, a
 *   bad `XMD_WORKER_SHELL_HEAP_MIB`) starts none here, and its refusal or
 *   its start happens where it always did.
 * - What this module imports loads no store, schema, error class or npm
 *   package (MDX-130): only the interpreter's process and its frames, and only
 *   once the document visibly holds a shell block.
 *
 * @module
 */
import { isAbsolutePath, joinPath } from "@xmd/core/deno/internal";
import type { PrestartedInterpreter } from "@xmd/workflow/deno/interpreter";
import type { CommandIo } from "./command-io.ts";

/**
 * An `sh` or `bash` fence with `exec` in its info string, at the start of a
 * line: what a document that runs a shell block visibly holds. A fence in a
 * component, or one this misses, is still found once the document is
 * checked (WF-130); text that only looks like one costs an interpreter
 * started and killed.
 */
const EXEC_FENCE = /^ {0,3}(?:`{3,}|~{3,})[ \t]*(?:sh|bash)\b[^\n]*\bexec\b/m;

/**
 * `XMD_WORKER_SHELL_HEAP_MIB`, the interpreter's heap limit in MiB:
 * undefined when it is unset or empty (the default), null when it is not a
 * whole number of at least 16 (the command refuses it).
 */
export function heapLimitMib(env: Record<string, string | undefined>): number | undefined | null {
  const configured = env.XMD_WORKER_SHELL_HEAP_MIB;
  if (configured === undefined || configured === "") return undefined;
  const mib = Number(configured);
  return /^[0-9]{1,7}$/.test(configured) && mib >= 16 ? mib : null;
}

/**
 * The document `xmd workflow start <args>` starts, when `args` are plainly a
 * local start of one path: only `--id`, `--props`, `--props-<name>` and
 * `--no-secret-detection` beside it, and no remote host in the environment.
 */
function plainDocument(
  args: readonly string[],
  env: Record<string, string | undefined>,
): string | undefined {
  if (env.XMD_WORKFLOW_REMOTE) return undefined;
  let document: string | undefined;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    if (arg === "--id" || arg === "--props") {
      index++;
      continue;
    }
    if (
      arg.startsWith("--id=") || arg.startsWith("--props=") || arg.startsWith("--props-") ||
      arg === "--no-secret-detection"
    ) continue;
    if (arg.startsWith("-") || document !== undefined) return undefined;
    document = arg;
  }
  const hash = document?.indexOf("#") ?? -1;
  return hash < 0 ? document : document!.slice(0, hash);
}

/**
 * Worker Shell's interpreter for `xmd workflow start <args>` (the arguments
 * after `start`), started now when they name a regular file that visibly
 * holds a shell block, or undefined. Whatever keeps the document from being
 * read here is left to the start, which reports it where it did.
 */
export async function earlyInterpreter(
  args: readonly string[],
  io: CommandIo,
): Promise<PrestartedInterpreter | undefined> {
  const document = plainDocument(args, io.env);
  const heapLimit = heapLimitMib(io.env);
  if (document === undefined || document === "" || heapLimit === null) return undefined;
  try {
    const path = isAbsolutePath(document) ? document : joinPath(io.cwd, document);
    // Only a regular file is read twice: reading a pipe here would take its text from the start.
    if (!(await Deno.stat(path)).isFile) return undefined;
    if (!EXEC_FENCE.test(await Deno.readTextFile(path))) return undefined;
  } catch {
    return undefined;
  }
  const { prestartInterpreter } = await import("@xmd/workflow/deno/interpreter");
  return prestartInterpreter(heapLimit === undefined ? {} : { heapLimitMib: heapLimit });
}
