/**
 * End-to-end startup: `xmd workflow start` as a real subprocess on a tiny
 * document that completes (prose and a `<Let>`, no effect but the props), with
 * its peers in the same run: `xmd run` on the same document, `xmd run` and
 * `xmd workflow start` of `examples/hello.md` (frontmatter props, `<Each>`,
 * two exec blocks), `xmd --help`, `xmd workflow list` (10 runs) and
 * `xmd workflow status`, and a bare `deno eval '0'` (the runtime floor). `xmd` is the installed command, as the
 * README installs it (`deno task install`: the bundled CLI, here built and
 * installed into the fixture's folder), so each row is what a user's shell starts.
 *
 * Invariant: every timed call is checked to have exited 0 with the rendered
 * document on stdout (and, for `workflow start`, a completed run), so a
 * failing start fails the benchmark instead of timing an error path.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { installCli } from "../packages/cli/src/deno/_bundle-cli.ts";
import { loadProgram } from "@xmd/core";
import { fixed, sample, summarize, type Summary } from "./_stats.ts";

const HELLO = fileURLToPath(new URL("../examples/hello.md", import.meta.url));

/** The document: it renders `x is 3.` and completes. */
export const STARTUP_DOCUMENT = [
  "Hello from the startup bench.",
  "",
  '<Let as="x" value={1 + 2} />',
  "",
  "x is {x}.",
  "",
].join("\n");

const EXPECTED = "x is 3.";
/** The last line `examples/hello.md` renders: its second exec block ran. */
const HELLO_EXPECTED = "The answer is 42.";

/** `<File>` elements in the large document, each of {@linkcode LARGE_FILE_BYTES} of text. */
export const LARGE_FILES = 220;
/** Bytes of prose inside each `<File>` of the large document. */
export const LARGE_FILE_BYTES = 1_000;

/**
 * The large document: a heading and {@linkcode LARGE_FILES} `<File>`
 * elements, each writing about 1 KB of prose (words of a fixed list, so no
 * rule of the secret gate finds anything), about 220 KB in all.
 */
export function largeDocument(): string {
  const words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota"];
  const parts = ["# A large document", ""];
  for (let file = 0; file < LARGE_FILES; file++) {
    const lines: string[] = [];
    let bytes = 0;
    for (let line = 0; bytes < LARGE_FILE_BYTES; line++) {
      const text = Array.from({ length: 10 }, (_, i) => words[(file + line * 7 + i * 3) % 9])
        .join(" ");
      lines.push(text);
      bytes += text.length + 1;
    }
    parts.push(`<File path="out/${file}.txt">`, lines.join("\n").slice(0, LARGE_FILE_BYTES));
    parts.push("</File>", "");
  }
  return parts.join("\n");
}

/** The timed subprocesses over one folder. */
export interface StartupFixture {
  /** `xmd --help`. */
  help(): Promise<void>;
  /** `xmd workflow list` over 10 runs. */
  list(): Promise<void>;
  /** `xmd workflow status <run>`. */
  status(): Promise<void>;
  /** `xmd workflow start --id=<new> doc.md`, a new run database each call. */
  workflowStart(): Promise<void>;
  /** `xmd run doc.md`. */
  run(): Promise<void>;
  /** `xmd run hello.md` (a copy of `examples/hello.md`). */
  runHello(): Promise<void>;
  /** `xmd workflow start --id=<new> hello.md`. */
  workflowStartHello(): Promise<void>;
  /** `xmd run large.md` ({@linkcode largeDocument}). */
  runLarge(): Promise<void>;
  /** `xmd workflow start --id=<new> large.md`. */
  workflowStartLarge(): Promise<void>;
  /** `deno eval '0'`. */
  denoEval(): Promise<void>;
}

/** Writes the document into `dir` and keeps the runs under `dir/runs`. */
export async function createStartupFixture(dir: string): Promise<StartupFixture> {
  await Deno.writeTextFile(`${dir}/doc.md`, STARTUP_DOCUMENT);
  await Deno.copyFile(HELLO, `${dir}/hello.md`);
  await Deno.writeTextFile(`${dir}/large.md`, largeDocument());
  let runs = 0;
  const env = {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: Deno.env.get("HOME") ?? "/tmp",
    ...(Deno.env.get("DENO_DIR") ? { DENO_DIR: Deno.env.get("DENO_DIR")! } : {}),
    XMD_WORKFLOW_RUNS: `${dir}/runs`,
    NO_COLOR: "1",
  };
  await installCli({ dir: `${dir}/dist`, root: dir });
  const XMD = `${dir}/bin/xmd`;
  const spawn = async (
    [command, ...args]: string[],
    what: string,
    expect: (out: string) => boolean,
  ) => {
    const output = await new Deno.Command(command, {
      args,
      cwd: dir,
      clearEnv: true,
      env,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const decoder = new TextDecoder();
    const stdout = decoder.decode(output.stdout);
    const stderr = decoder.decode(output.stderr);
    if (output.code !== 0 || !expect(stdout + stderr)) {
      throw new Error(`Cannot benchmark ${what}: exit ${output.code}\n${stdout}${stderr}`);
    }
  };
  const xmd = [XMD];
  // Ten completed runs for `list` and `status`.
  for (let index = 0; index < 10; index++) {
    await spawn(
      [...xmd, "workflow", "start", `--id=listed-${index}`, "doc.md"],
      "xmd workflow start",
      (out) => out.includes("workflow status: completed"),
    );
  }
  return {
    help: () => spawn([...xmd, "--help"], "xmd --help", (out) => out.includes("Usage: xmd")),
    list: () =>
      spawn([...xmd, "workflow", "list"], "xmd workflow list", (out) => out.includes("listed-9")),
    status: () =>
      spawn(
        [...xmd, "workflow", "status", "listed-0"],
        "xmd workflow status",
        (out) => out.includes("completed"),
      ),
    workflowStart: () =>
      spawn(
        [...xmd, "workflow", "start", `--id=bench-${Date.now()}-${++runs}`, "doc.md"],
        "xmd workflow start",
        (out) => out.includes(EXPECTED) && out.includes("workflow status: completed"),
      ),
    run: () => spawn([...xmd, "run", "doc.md"], "xmd run", (out) => out.includes(EXPECTED)),
    runHello: () =>
      spawn([...xmd, "run", "hello.md"], "xmd run hello.md", (out) => out.includes(HELLO_EXPECTED)),
    runLarge: () =>
      spawn(
        [...xmd, "run", "large.md"],
        "xmd run large.md",
        (out) => out.includes("# A large document"),
      ),
    workflowStartLarge: () =>
      spawn(
        [...xmd, "workflow", "start", `--id=large-${Date.now()}-${++runs}`, "large.md"],
        "xmd workflow start large.md",
        (out) => out.includes("workflow status: completed"),
      ),
    workflowStartHello: () =>
      spawn(
        [...xmd, "workflow", "start", `--id=hello-${Date.now()}-${++runs}`, "hello.md"],
        "xmd workflow start hello.md",
        (out) => out.includes(HELLO_EXPECTED) && out.includes("workflow status: completed"),
      ),
    denoEval: () => spawn([Deno.execPath(), "eval", "0"], "deno eval", () => true),
  };
}

/** The startup rows, by name, as the bench reports them. */
export const STARTUP = {
  workflow: "xmd workflow start --id=<new> doc.md",
  run: "peer: xmd run doc.md",
  runHello: "xmd run examples/hello.md",
  workflowHello: "xmd workflow start --id=<new> examples/hello.md",
  help: "xmd --help",
  list: "xmd workflow list (10 runs)",
  status: "xmd workflow status <run>",
  eval: "floor: deno eval '0'",
} as const;

/** Each command's start-up target: its median ÷ `deno eval '0'`'s, at most (issue 12). */
export const STARTUP_TARGETS: ReadonlyArray<readonly [string, number]> = [
  [STARTUP.help, 2],
  [STARTUP.list, 3],
  [STARTUP.status, 3],
  [STARTUP.runHello, 4],
  [STARTUP.workflowHello, 5],
];

/** The rows of the summary table for the start-up targets: check, measured, target, met. */
export function startupChecks(
  rows: readonly { name: string; overReference: number; roundRatios?: RoundRatios }[],
): string[][] {
  return STARTUP_TARGETS.map(([name, target]) => {
    const row = rows.find((row) => row.name === name)!;
    const measured = row.overReference;
    return [
      `start-up: ${name} ÷ deno eval '0', median`,
      `${measured.toFixed(2)}×${spread(row.roundRatios)}`,
      `≤ ${target}×`,
      measured <= target ? "yes" : "no",
    ];
  });
}

/** The large-document targets (issue 12): parse ms per KB, and `workflow start` ÷ `run`. */
export const TARGET_PARSE_MS_PER_KB = 0.5;
export const TARGET_LARGE_START_OVER_RUN = 1.3;

/** The large document's rows, by name. */
export const LARGE = {
  run: "xmd run large.md (220 <File> of 1 KB)",
  workflow: "xmd workflow start --id=<new> large.md",
} as const;

/** `loadProgram` of the large document in this process: the first call, then warm calls. */
export async function parseLargeDocument(): Promise<
  { kb: number; firstMs: number; summary: Summary }
> {
  const text = largeDocument();
  const load = () => loadProgram({ file: "large.md", text }, () => Promise.resolve(undefined));
  const t0 = performance.now();
  await load();
  const firstMs = performance.now() - t0;
  const summary = summarize(
    await sample(async () => {
      await load();
    }, { warmupCalls: 2, warmupMs: 0, minSamples: 10, budgetMs: 3_000, maxSamples: 30 }),
  );
  return { kb: new TextEncoder().encode(text).length / 1024, firstMs, summary };
}

/** The quartiles of a row's per-round ratios to its reference. */
export interface RoundRatios {
  p25: number;
  p75: number;
}

/** How a ratio's spread is shown beside it: the quartiles of its per-round ratios. */
function spread(ratios: RoundRatios | undefined): string {
  return ratios ? ` (rounds p25–p75 ${ratios.p25.toFixed(2)}–${ratios.p75.toFixed(2)})` : "";
}

/** The rows of the summary table for the large-document targets. */
export function largeDocumentChecks(
  rows: readonly { name: string; summary: Summary; roundRatios?: RoundRatios }[],
  parse: { kb: number; firstMs: number; summary: Summary },
): string[][] {
  const row = (name: string) => rows.find((row) => row.name === name)!;
  const startOverRun = row(LARGE.workflow).summary.medianMs / row(LARGE.run).summary.medianMs;
  const perKb = parse.summary.medianMs / parse.kb;
  return [
    [
      `large document: parse (loadProgram, warm) of ${fixed(parse.kb, 0)} KB, median`,
      `${fixed(perKb, 3)} ms/KB`,
      `≤ ${TARGET_PARSE_MS_PER_KB} ms/KB`,
      perKb <= TARGET_PARSE_MS_PER_KB ? "yes" : "no",
    ],
    [
      "large document: parse, first call in a process",
      `${fixed(parse.firstMs / parse.kb, 3)} ms/KB`,
      "(context)",
      "",
    ],
    [
      "large document: xmd workflow start ÷ xmd run, median",
      `${fixed(startOverRun, 2)}×${spread(row(LARGE.workflow).roundRatios)}`,
      `≤ ${TARGET_LARGE_START_OVER_RUN}×`,
      startOverRun <= TARGET_LARGE_START_OVER_RUN ? "yes" : "no",
    ],
  ];
}
