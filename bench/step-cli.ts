/**
 * The marginal cost of one durable `<File>` step as a user meets it: the
 * installed `xmd` command (the bundle `deno task install` builds, as the
 * README installs it) runs `xmd workflow start --id=<new>` of a document whose
 * `<Each>` writes `SMALL` files of 1 KiB, and of the same document with
 * `LARGE` files, as real subprocesses; the difference of their medians over
 * the difference of their steps is what one more step costs, start-up
 * cancelled out. Wall time comes from `performance.now()` around each
 * subprocess, CPU time (user + system, children included) from GNU
 * `/usr/bin/time` wrapping it. The floor is one bare `node:sqlite` commit of
 * 1 KiB (WAL, `synchronous=FULL`, `BEGIN IMMEDIATE` + INSERT + `COMMIT`) in
 * the same folder, sampled in blocks between the subprocesses.
 *
 * Invariant: every subprocess is checked to have exited 0 with its run
 * `completed` and its last file written, so a failing start fails the
 * benchmark instead of timing an error path; the subprocesses and the bare
 * commits are interleaved in rotating order, so they see the same machine.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { installCli } from "../packages/cli/src/deno/_bundle-cli.ts";
import { fixed, markdownTable, summarize, type Summary } from "./_stats.ts";

/** Steps of the two documents. */
export const STEP_COUNTS = { small: 20, large: 220 } as const;
/** Bytes each step writes (and the bare commit inserts). */
export const STEP_CLI_BYTES = 1_024;
/** Marginal step ÷ bare commit, at the median: at most this (issue 12, target 1). */
export const TARGET_STEP_OVER_COMMIT = 2;

const ROUNDS = { warmup: 1, timed: 12 } as const;
const BARE_BLOCK = 25;

/**
 * The document: `<Each>` over `steps` items, each a `<File>` of 1,024 bytes
 * (its number, then prose of fixed words), so every file's content, and so
 * its chunk, is new.
 */
export function stepDocument(steps: number): string {
  const prose = "the quick brown fox jumps over the lazy dog ".repeat(30);
  const items = Array.from({ length: steps }, (_, i) => i).join(", ");
  return [
    `<Let as="items" value={[${items}]} />`,
    "",
    '<Each items={items} as="i">',
    // `{i + 1000}` is 4 digits for any item here; a space, then prose pads to 1,024.
    `<File path={\`s/\${i}.txt\`}>{i + 1000} ${prose.slice(0, STEP_CLI_BYTES - 5)}</File>`,
    "</Each>",
    "",
    "done",
    "",
  ].join("\n");
}

/** One subprocess's figures. */
interface Timing {
  wallMs: number;
  cpuMs: number;
}

/** What the row reports. */
export interface StepCliResult {
  /** Whole `workflow start` of the small document: wall and CPU. */
  small: { wall: Summary; cpu: Summary };
  /** The same of the large document. */
  large: { wall: Summary; cpu: Summary };
  /** The bare commit. */
  bare: Summary;
  /** (large − small median) ÷ (large − small steps), ms. */
  stepWallMs: number;
  /** The same of CPU time, ms. */
  stepCpuMs: number;
  /** `stepWallMs` ÷ the bare commit's median. */
  wallOverCommit: number;
  /** `stepCpuMs` ÷ the bare commit's median. */
  cpuOverCommit: number;
}

/** Installs `xmd` into `dir`, writes both documents and measures them against the bare commit. */
export async function runStepCli(dir: string): Promise<StepCliResult> {
  const env = {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: Deno.env.get("HOME") ?? "/tmp",
    ...(Deno.env.get("DENO_DIR") ? { DENO_DIR: Deno.env.get("DENO_DIR")! } : {}),
    XMD_WORKFLOW_RUNS: `${dir}/runs`,
    NO_COLOR: "1",
  };
  await installCli({ dir: `${dir}/dist`, root: dir });
  for (const steps of Object.values(STEP_COUNTS)) {
    await Deno.writeTextFile(`${dir}/steps-${steps}.md`, stepDocument(steps));
  }
  let runs = 0;
  const start = async (steps: number): Promise<Timing> => {
    const id = `steps-${steps}-${++runs}`;
    const t0 = performance.now();
    const output = await new Deno.Command("/usr/bin/time", {
      args: [
        "-f",
        "cpu %U %S",
        `${dir}/bin/xmd`,
        "workflow",
        "start",
        `--id=${id}`,
        `steps-${steps}.md`,
      ],
      cwd: dir,
      clearEnv: true,
      env,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const wallMs = performance.now() - t0;
    const stdout = new TextDecoder().decode(output.stdout);
    const stderr = new TextDecoder().decode(output.stderr);
    const cpu = /^cpu ([\d.]+) ([\d.]+)$/m.exec(stderr);
    if (
      output.code !== 0 || !stdout.includes("done") ||
      !stderr.includes("workflow status: completed") || !cpu
    ) {
      throw new Error(`Cannot benchmark ${steps} steps: exit ${output.code}\n${stdout}${stderr}`);
    }
    return { wallMs, cpuMs: (Number(cpu[1]) + Number(cpu[2])) * 1_000 };
  };
  const bare = new DatabaseSync(`${dir}/bare.sqlite`);
  try {
    bare.exec("PRAGMA journal_mode = WAL");
    bare.exec("PRAGMA synchronous = FULL");
    bare.exec("CREATE TABLE item (id INTEGER PRIMARY KEY, body BLOB NOT NULL) STRICT");
    const insert = bare.prepare("INSERT INTO item (body) VALUES (?)");
    const bareMs: number[] = [];
    const commits = (timed: boolean) => {
      for (let call = 0; call < BARE_BLOCK; call++) {
        const blob = crypto.getRandomValues(new Uint8Array(STEP_CLI_BYTES));
        const t0 = performance.now();
        bare.exec("BEGIN IMMEDIATE");
        insert.run(blob);
        bare.exec("COMMIT");
        if (timed) bareMs.push(performance.now() - t0);
      }
    };
    const small: Timing[] = [];
    const large: Timing[] = [];
    for (let round = 0; round < ROUNDS.warmup + ROUNDS.timed; round++) {
      const timed = round >= ROUNDS.warmup;
      const turns = [
        async () => {
          const t = await start(STEP_COUNTS.small);
          if (timed) small.push(t);
        },
        async () => {
          const t = await start(STEP_COUNTS.large);
          if (timed) large.push(t);
        },
        () => Promise.resolve(commits(timed)),
      ];
      for (let turn = 0; turn < turns.length; turn++) await turns[(round + turn) % turns.length]();
    }
    const wall = (list: Timing[]) => summarize({ ms: list.map((t) => t.wallMs) });
    const cpu = (list: Timing[]) => summarize({ ms: list.map((t) => t.cpuMs) });
    const steps = STEP_COUNTS.large - STEP_COUNTS.small;
    const bareSummary = summarize({ ms: bareMs });
    const stepWallMs = (wall(large).medianMs - wall(small).medianMs) / steps;
    const stepCpuMs = (cpu(large).medianMs - cpu(small).medianMs) / steps;
    const result = {
      small: { wall: wall(small), cpu: cpu(small) },
      large: { wall: wall(large), cpu: cpu(large) },
      bare: bareSummary,
      stepWallMs,
      stepCpuMs,
      wallOverCommit: stepWallMs / bareSummary.medianMs,
      cpuOverCommit: stepCpuMs / bareSummary.medianMs,
    };
    console.error(
      `  per step through the CLI: ${fixed(stepWallMs, 3)} ms wall, ${
        fixed(stepCpuMs, 3)
      } ms CPU; bare commit ${fixed(bareSummary.medianMs, 3)} ms`,
    );
    return result;
  } finally {
    bare.close();
  }
}

/** The table of the row: each document's start, the bare commit and the marginal step. */
export function stepCliTable(result: StepCliResult): string {
  const row = (name: string, wall: Summary, cpu: Summary | undefined) => [
    name,
    fixed(wall.medianMs, 3),
    fixed(wall.p99Ms, 3),
    cpu ? fixed(cpu.medianMs, 1) : "",
    String(wall.n),
  ];
  return markdownTable(
    ["what", "median ms", "p99 ms", "CPU ms (median)", "samples"],
    [
      row(
        `xmd workflow start, <Each> of ${STEP_COUNTS.small} <File> of 1 KiB`,
        result.small.wall,
        result.small.cpu,
      ),
      row(
        `xmd workflow start, <Each> of ${STEP_COUNTS.large} <File> of 1 KiB`,
        result.large.wall,
        result.large.cpu,
      ),
      row(
        "floor: bare node:sqlite BEGIN IMMEDIATE + INSERT 1 KiB + COMMIT (FULL)",
        result.bare,
        undefined,
      ),
    ],
    "lrrrr",
  );
}

/** The summary rows: check, measured, target, met. */
export function stepCliChecks(result: StepCliResult): string[][] {
  return [
    [
      `marginal <File> step through the CLI (N = ${STEP_COUNTS.small} vs ${STEP_COUNTS.large}), wall ÷ bare FULL commit, median`,
      `${fixed(result.wallOverCommit, 2)}× (${fixed(result.stepWallMs, 3)} ms)`,
      `≤ ${TARGET_STEP_OVER_COMMIT}×`,
      result.wallOverCommit <= TARGET_STEP_OVER_COMMIT ? "yes" : "no",
    ],
    [
      "marginal <File> step through the CLI, CPU ÷ bare FULL commit (wall), median",
      `${fixed(result.cpuOverCommit, 2)}× (${fixed(result.stepCpuMs, 3)} ms)`,
      "(context)",
      "",
    ],
  ];
}
