/**
 * Background jobs with bash's statuses (WS-183). just-bash ignores `&`: it
 * runs `cmd &` as `cmd`, so the statement's status was the job's (under
 * `set -e` a failing `build_docs &` ended the block, where bash goes on:
 * a background job's failure is only `wait`'s), `$!` was always 0, and
 * `wait PID` always 0, so `build & p=$!; …; wait $p || fail` never saw the
 * build fail.
 *
 * Worker Shell runs one command at a time, so a background job still runs to
 * its end before the statement after it (its output comes first, and `sleep
 * 1 &` waits); what changes is what bash's scripts read of it. Before a
 * script runs, this transform rewrites
 *
 * - each `LIST &` as `( LIST ) && __xmd_job 0 || __xmd_job "$?"`: the job
 *   runs in a subshell, as bash's does (its assignments and `cd` stay in
 *   it; `set -e` applies inside it), the statement ends with status 0, and
 *   `__xmd_job` records the job's status under a process id of its own,
 *   which `$!` then expands to;
 * - each `$!` (`${!}`, `${!:-…}`) as that id (`__xmd_last_job`);
 * - each command named `wait` as `__xmd_wait`, which answers from those
 *   records as bash's `wait` does: `wait PID…` the last one's status (again
 *   on a second `wait`, as bash 5.2 remembers), `wait -n` the status of the
 *   first job no `wait` has reaped (127 when none is left), `wait` alone 0;
 *   a process id no job had is `bash: wait: pid N is not a child of this
 *   shell`, status 127, and a word that is no id `bash: wait: \`WORD': not
 *   a pid or valid job spec`, status 1. `%N` names the Nth job, `%%` and
 *   `%+` the last.
 *
 * Invariants:
 * - The records are shell variables (`__xmd_jobs`, `__xmd_last_job`,
 *   `__xmd_job_<PID>`), so a subshell's jobs are not its parent's, as in
 *   bash.
 * - Under `set -x` the trace shows the `__xmd_job` call after the job's own
 *   lines. `jobs`, `disown`, `fg`, `bg` and `kill %N` are as just-bash has
 *   them.
 *
 * @module
 */
// The interpreter runs with no configuration file, so its imports name the exact version.
// deno-lint-ignore no-import-prefix
import { parse } from "npm:just-bash@3.4.2";
import type {
  Command,
  CommandNode,
  ExecResult,
  ResolvedCommandContext,
  ScriptNode,
  StatementNode,
  TransformPlugin,
} from "just-bash";

const JOB = "__xmd_job";
const WAIT = "__xmd_wait";
const JOBS = "__xmd_jobs";
const LAST_JOB = "__xmd_last_job";

/** A job's process id is this plus its number: distinct from the interpreter's own ids. */
const JOB_PID_BASE = 20_000;

/** A script whose text may start a job, read `$!` or wait. */
export const MAY_RUN_JOBS = /&|\bwait\b/;

const RUN_JOB = parse(`( : ) && ${JOB} 0 || ${JOB} "$?"`).statements[0];

type Subshell = Extract<CommandNode, { type: "Subshell" }>;

/** `LIST &` run as a recorded job. */
function asJob(statement: StatementNode): StatementNode {
  const job = structuredClone(RUN_JOB);
  (job.pipelines[0].commands[0] as Subshell).body = [{ ...statement, background: false }];
  job.line = statement.line;
  return job;
}

function isStatement(value: unknown): value is StatementNode {
  return (value as { type?: unknown } | null)?.type === "Statement";
}

/** Makes, in place, an expansion of `$!` (`${!}`, `${!:-x}`, which just-bash parses as an indirection of nothing) one of the last job's id. */
function lastJobFor(expansion: Record<string, unknown>): void {
  if (expansion.parameter === "!") expansion.parameter = LAST_JOB;
  const operation = expansion.operation as { type?: unknown; innerOp?: unknown } | null;
  if (expansion.parameter === "" && operation?.type === "Indirection") {
    expansion.parameter = LAST_JOB;
    expansion.operation = operation.innerOp ?? null;
  }
}

/** Rewrites, in place, every `&`, `$!` and `wait` under `root`. */
function rewriteJobs(root: object): void {
  const stack: object[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as Record<string, unknown>;
    if (node.type === "ParameterExpansion") lastJobFor(node);
    if (node.type === "SimpleCommand") {
      const parts = (node.name as { parts?: { type: string; value?: string }[] } | null)?.parts;
      if (parts?.length === 1 && parts[0].type === "Literal" && parts[0].value === "wait") {
        parts[0] = { type: "Literal", value: WAIT };
      }
    }
    for (const [key, child] of Object.entries(node)) {
      if (child === null || typeof child !== "object") continue;
      if (Array.isArray(child) && child.some((item) => isStatement(item) && item.background)) {
        node[key] = child.map((item) => isStatement(item) && item.background ? asJob(item) : item);
      }
      stack.push(node[key] as object);
    }
  }
}

/** The transform (stateless): every script just-bash runs whose text may need it. */
export const backgroundPlugin: TransformPlugin = {
  name: "xmd-background",
  transform({ ast }): { ast: ScriptNode } {
    rewriteJobs(ast);
    return { ast };
  },
};

async function assign(ctx: ResolvedCommandContext, name: string, value: string): Promise<void> {
  if (ctx.assignShellVariable) await ctx.assignShellVariable(name, value);
  else ctx.env.set(name, value);
}

/** How many jobs this shell started. */
function jobCount(ctx: ResolvedCommandContext): number {
  const count = Number(ctx.env.get(JOBS) ?? "0");
  return Number.isSafeInteger(count) && count > 0 ? count : 0;
}

/** `__xmd_job STATUS`: records the job that just ended. */
export const jobCommand: Command = {
  name: JOB,
  trusted: true,
  async execute(args: string[], ctx: ResolvedCommandContext): Promise<ExecResult> {
    const number = jobCount(ctx) + 1;
    const pid = String(JOB_PID_BASE + number);
    await assign(ctx, JOBS, String(number));
    await assign(ctx, LAST_JOB, pid);
    await assign(ctx, `${JOB}_${pid}`, `${Number(args[0]) || 0}`);
    return { stdout: "", stderr: "", exitCode: 0 };
  },
};

/** A job's record: its status, and whether a `wait` reaped it. */
function recordOf(ctx: ResolvedCommandContext, pid: number) {
  const record = ctx.env.get(`${JOB}_${pid}`);
  if (record === undefined) return undefined;
  return { status: Number.parseInt(record, 10), reaped: record.endsWith("r") };
}

/** The process id a `wait` operand names, or why none. */
function pidOf(ctx: ResolvedCommandContext, operand: string): number | { message: string } {
  const count = jobCount(ctx);
  if (operand.startsWith("%")) {
    const spec = operand.slice(1);
    const number = spec === "%" || spec === "+" ? count : /^\d+$/.test(spec) ? Number(spec) : NaN;
    if (number >= 1 && number <= count) return JOB_PID_BASE + number;
    return { message: `bash: wait: ${operand}: no such job\n` };
  }
  if (!/^\d+$/.test(operand)) {
    return { message: `bash: wait: \`${operand}': not a pid or valid job spec\n` };
  }
  return Number(operand);
}

/** `__xmd_wait [-n] [-f] [ID…]`: bash's `wait` over the recorded jobs. */
export const waitCommand: Command = {
  name: WAIT,
  trusted: true,
  async execute(args: string[], ctx: ResolvedCommandContext): Promise<ExecResult> {
    let next = false;
    let at = 0;
    for (; at < args.length && /^-[nf]+$/.test(args[at]); at++) next ||= args[at].includes("n");
    if (args[at] === "--") at++;
    const reap = (pid: number, status: number) => assign(ctx, `${JOB}_${pid}`, `${status}r`);
    const count = jobCount(ctx);
    if (at === args.length) {
      for (let number = 1; number <= count; number++) {
        const record = recordOf(ctx, JOB_PID_BASE + number);
        if (record === undefined || record.reaped) continue;
        await reap(JOB_PID_BASE + number, record.status);
        if (next) return { stdout: "", stderr: "", exitCode: record.status };
      }
      return { stdout: "", stderr: "", exitCode: next ? 127 : 0 };
    }
    let stderr = "";
    let exitCode = 0;
    for (const operand of args.slice(at)) {
      const pid = pidOf(ctx, operand);
      const record = typeof pid === "number" ? recordOf(ctx, pid) : undefined;
      if (typeof pid !== "number") {
        stderr += pid.message;
        exitCode = operand.startsWith("%") ? 127 : 1;
      } else if (record === undefined) {
        stderr += `bash: wait: pid ${operand} is not a child of this shell\n`;
        exitCode = 127;
      } else {
        await reap(pid, record.status);
        exitCode = record.status;
      }
    }
    return { stdout: "", stderr, exitCode };
  },
};
