/**
 * The remote host's benchmarks, against the `WorkflowRun` Durable Object in
 * real workerd (miniflare, the test Worker of
 * `packages/workflow/src/cloudflare/_test-remote-worker.ts`), each runner
 * side built as `RemoteWorkflowHost` builds it: an executor connection
 * (`RemoteConnection`), `create`, the working copy (`readRemoteRun`,
 * `fetchRoot`, `writeWorkingCopy` into a run database opened with
 * `openWorkingCopy`), and the executor's effect path (`_workspace-effect.ts`)
 * committing through `RemoteRunCommits`.
 *
 * - `<File>` effect: a 1 KiB write on a run whose Workspace holds only that
 *   file, committed remotely, against the same effect on a local run
 *   database, interleaved.
 * - Bytes sent: on a run of 10,000 files (100 directories of 100, written
 *   by 100 effects), each one-file change's bytes on the socket, counted by
 *   a TCP proxy (`_counting-proxy.ts`), against 2 × (the bytes changed + the
 *   full text of the trees on the new path).
 * - Acquisition: a reader connection, `read-run` and the journal,
 *   `fetchRoot` and `writeWorkingCopy` (materialization) into a new run
 *   database, for 1,000 and 10,000 files; bytes received counted by the
 *   proxy; the floor is the local `verifyRoot` + `liveRootOf` of the copy.
 * - The reason for the runner's own WebSocket client: one 3.4 KB request
 *   (`get-objects` of 50 hashes, each object read and checked by the Durable
 *   Object) round trip over `RemoteConnection` against the same bytes over
 *   Deno's built-in `WebSocket`; and a bare `ping` round trip over
 *   `RemoteConnection` (nothing read or written), the transport's share of
 *   any request.
 *
 * Invariant: every timed call is checked (effects counted against the copy
 * and the Durable Object's frontier, acquisitions end on the root they
 * fetched, every reply parses), so a call that did not do its work fails the
 * benchmark instead of timing it.
 *
 * @module
 */
import { canonicalJson, type Description, sha256Hex } from "@xmd/core";
import { RunStore } from "@xmd/workflow";
import { verifyRoot } from "@xmd/workflow/internal";
import { nativeSha256Hex, openRunDatabase } from "@xmd/workflow/deno/internal";
import { RemoteWorkerd } from "../packages/workflow/src/cloudflare/_test-remote-workerd.ts";
import { RemoteConnection } from "../packages/workflow/src/deno/remote-connection.ts";
import {
  decodeReply,
  encodeRequest,
  WEBSOCKET_PROTOCOL,
} from "../packages/workflow/src/remote/frames.ts";
import { openWorkingCopy } from "../packages/workflow/src/deno/working-copy-database.ts";
import { definitionHashOf } from "../packages/workflow/src/remote/new-run-checks.ts";
import { RemoteRunCommits } from "../packages/workflow/src/remote/remote-run-commits.ts";
import {
  fetchRoot,
  readRemoteRun,
  writeWorkingCopy,
} from "../packages/workflow/src/remote/working-copy.ts";
import { liveRootOf } from "../packages/workflow/src/workspace/live-root.ts";
import { readObjectText } from "../packages/workflow/src/workspace/object-store.ts";
import { CountingProxy } from "./_counting-proxy.ts";
import {
  fixed,
  type InterleavedBudget,
  markdownTable,
  sampleInterleaved,
  summarize,
  type Summary,
} from "./_stats.ts";
import { type EffectRun, effectRunOn, openEffectRun } from "./_workspace-effect.ts";
import { EFFECT_BYTES, effectText } from "./workspace.ts";

/** Remote ÷ local `<File>` effect, median. */
export const TARGET_REMOTE_EFFECT_RATIO = 3;
/** Bytes sent ÷ (changed bytes + full path trees). */
export const TARGET_BYTES_FACTOR = 2;
/** Per-file acquisition cost at 10,000 ÷ at 1,000 files. */
export const TARGET_ACQUISITION_GROWTH = 1.25;
/** Directories of 100 files: 1,000 and 10,000 files. */
const ACQUISITION_DIRS = [10, 100] as const;
const FILES_PER_DIR = 100;
/** One-file changes measured for the bytes sent. */
const CHANGES = 30;

const EFFECT_BUDGET: InterleavedBudget = {
  warmupCalls: 25,
  blockSize: 25,
  minSamples: 300,
  budgetMs: 8_000,
  maxSamples: 1_500,
};
const ROUND_TRIP_BUDGET: InterleavedBudget = {
  warmupCalls: 5,
  blockSize: 10,
  minSamples: 40,
  budgetMs: 4_000,
  maxSamples: 200,
};
const ACQUISITION_BUDGET: InterleavedBudget = {
  warmupCalls: 1,
  blockSize: 1,
  minSamples: 5,
  budgetMs: 0,
  maxSamples: 5,
};

const pad = (n: number) => String(n).padStart(3, "0");

/** A remote run acquired by an executor connection, with its working copy and effect path. */
interface RemoteEffectRun extends Disposable {
  run: EffectRun;
  seam: EffectRun["store"]["sql"];
  /** Throws unless the Durable Object's frontier is the working copy's. */
  verify(): Promise<void>;
}

/** Creates run `id` at `url` and acquires it as the runner does, its copy in `dir`. */
async function createRemoteRun(url: string, id: string, dir: string): Promise<RemoteEffectRun> {
  const where = `run "${id}"`;
  const connection = await RemoteConnection.open(url);
  await connection.call({ type: "hello", role: "executor" });
  const sources = [{ label: "bench.md", text: "Bench.\n", root: true }];
  await connection.call({
    type: "create",
    run: {
      id,
      document: "bench.md",
      target: null,
      definitionHash: definitionHashOf(sources, null),
      props: {},
      propsHash: sha256Hex(canonicalJson({})),
      sources,
    },
  });
  const remote = await readRemoteRun(connection);
  if (!remote) throw new Error(`Cannot benchmark run ${id}: it was not created`);
  const seam = await openWorkingCopy(`${dir}/${id}.sqlite`, where);
  const known = await fetchRoot(connection, seam, remote.snapshot.record.root, nativeSha256Hex);
  writeWorkingCopy(seam, remote, where, nativeSha256Hex);
  const store = new RunStore(seam, where);
  const commits = new RemoteRunCommits(connection, seam, known, remote.snapshot.links, where, {
    sha256: nativeSha256Hex,
  });
  const run = await effectRunOn(
    seam,
    store,
    remote.snapshot.frontier.execution,
    undefined,
    commits,
  );
  return {
    run,
    seam,
    verify: async () => {
      run.verify();
      using reader = await RemoteConnection.open(url);
      await reader.call({ type: "hello", role: "reader" });
      const { reply } = await reader.call({ type: "read-run" });
      const record = store.record();
      if (
        reply.run?.record.root !== record.root || reply.run.record.eventCount !== record.eventCount
      ) {
        throw new Error(`Cannot trust the remote bench: ${where}'s Durable Object differs`);
      }
    },
    [Symbol.dispose]: () => {
      connection.close();
      run[Symbol.dispose]();
    },
  };
}

/** One `<File>` write effect of `content` at `path`, checked to have run live. */
async function writeEffect(run: EffectRun, path: string, content: string): Promise<void> {
  const description: Description = {
    type: "file.write",
    name: "File bench.md:3:1",
    path,
    sha256: sha256Hex(content),
  };
  const settled = await run.journal.effect("root", description, async () => {
    await run.fs.writeText(path, content);
    return { status: "ok", value: null };
  });
  if (settled.replayed || settled.result.status !== "ok") {
    throw new Error("Cannot benchmark a <File> effect: it did not run live and succeed");
  }
}

/** Writes `dirs` × 100 small files, one Workspace effect per directory (as a shell block would). */
async function populate(run: EffectRun, dirs: number): Promise<void> {
  for (let d = 0; d < dirs; d++) {
    const settled = await run.journal.effect(
      "root",
      { type: "exec", name: "Exec bench.md:1:1", populates: `d${pad(d)}` },
      async () => {
        for (let f = 0; f < FILES_PER_DIR; f++) {
          await run.fs.writeText(`d${pad(d)}/f${pad(f)}.txt`, `file ${d}/${f}\n`);
        }
        // A block that exits 0 keeps its changes.
        return { status: "ok", value: { exitCode: 0 } };
      },
    );
    if (settled.result.status !== "ok") throw new Error("Cannot populate the remote bench run");
  }
}

/** The full text length of the trees from the root to `path`'s directory, in `seam`'s store. */
function pathTreeBytes(seam: EffectRun["store"]["sql"], root: string, path: string): number {
  let bytes = 0;
  let tree = root;
  const dirs = path.split("/").slice(0, -1);
  for (let depth = 0;; depth++) {
    const text = readObjectText(seam, tree, "the bench run");
    if (text === undefined) throw new Error("Cannot measure a path tree: it is missing");
    bytes += new TextEncoder().encode(text).length;
    if (depth === dirs.length) return bytes;
    const entries = JSON.parse(text).entries as [string, string, number, string][];
    tree = entries.find(([name]) => name === dirs[depth])![3];
  }
}

/** A timed row of an interleaved comparison. */
export interface RemoteRow {
  name: string;
  summary: Summary;
}

/** What the remote group measured. */
export interface RemoteResults {
  effect: { local: RemoteRow; remote: RemoteRow; ratio: number; p99Ratio: number; met: boolean };
  roundTrip: { client: RemoteRow; builtin: RemoteRow; ping: RemoteRow; requestBytes: number };
  bytes: {
    files: number;
    changes: number;
    changedBytes: number;
    medianSent: number;
    maxSent: number;
    /** The smallest bound over the changes measured. */
    bound: number;
    met: boolean;
  };
  acquisition: {
    sizes: {
      files: number;
      summary: Summary;
      msPerFile: number;
      receivedBytes: number;
      floor: Summary;
    }[];
    growth: number;
    met: boolean;
  };
}

const ROW = {
  local: "<File> 1 KiB effect, local run (Workspace holding only that file)",
  remote: "<File> 1 KiB effect, remote run in workerd, same Workspace",
  client:
    "get-objects of 50 hashes, round trip to the Durable Object, RemoteConnection (websocket-client.ts)",
  builtin: "the same request bytes over Deno's built-in WebSocket",
  ping: "bare request round trip (ping), RemoteConnection",
} as const;

/** Runs the remote group. */
export async function runRemote(): Promise<RemoteResults> {
  const dir = await Deno.makeTempDir({ prefix: "xmd-bench-remote-" });
  await using workerd = await RemoteWorkerd.start();
  await using proxy = CountingProxy.start(new URL(workerd.base));
  const urlOf = (id: string) => `${workerd.base}?run=${id}`;
  try {
    console.error("  remote <File> effect against a local one");
    using local = await openEffectRun(`${dir}/local.sqlite`);
    using remote = await createRemoteRun(urlOf("effect"), "effect", dir);
    let calls = 0;
    const [localMs, remoteMs] = await sampleInterleaved([
      () => writeEffect(local, "d000/f000.txt", effectText(++calls)),
      () => writeEffect(remote.run, "d000/f000.txt", effectText(++calls)),
    ], EFFECT_BUDGET);
    local.verify();
    await remote.verify();
    const localSummary = summarize(localMs);
    const remoteSummary = summarize(remoteMs);
    const ratio = remoteSummary.medianMs / localSummary.medianMs;

    console.error("  one request round trip, websocket-client against Deno's WebSocket");
    const roundTrip = await measureRoundTrip(urlOf("effect"), remote.seam);

    console.error("  bytes sent for a one-file change in a 10,000-file Workspace");
    const large = await createRemoteRun(proxy.via(urlOf("large")), "large", dir);
    try {
      await populate(large.run, 100);
      const sent: number[] = [];
      let bound = Infinity;
      for (let change = 1; change <= CHANGES; change++) {
        const path = `d${pad((change * 7) % 100)}/f${pad((change * 37) % FILES_PER_DIR)}.txt`;
        const before = proxy.counts.sent;
        await writeEffect(large.run, path, effectText(change));
        sent.push(proxy.counts.sent - before);
        const root = large.run.store.record().root;
        bound = Math.min(
          bound,
          TARGET_BYTES_FACTOR * (EFFECT_BYTES + pathTreeBytes(large.seam, root, path)),
        );
      }
      await large.verify();
      const sorted = [...sent].sort((a, b) => a - b);
      const bytes = {
        files: 100 * FILES_PER_DIR,
        changes: CHANGES,
        changedBytes: EFFECT_BYTES,
        medianSent: sorted[Math.floor(sorted.length / 2)],
        maxSent: sorted[sorted.length - 1],
        bound,
        met: sorted[sorted.length - 1] <= bound,
      };

      console.error("  acquisition and materialization, 1,000 and 10,000 files");
      const small = await createRemoteRun(urlOf("small"), "small", dir);
      try {
        await populate(small.run, ACQUISITION_DIRS[0]);
        await small.verify();
      } finally {
        small[Symbol.dispose]();
      }
      const acquisition = await measureAcquisition(
        [proxy.via(urlOf("small")), proxy.via(urlOf("large"))],
        dir,
        proxy,
      );
      return {
        effect: {
          local: { name: ROW.local, summary: localSummary },
          remote: { name: ROW.remote, summary: remoteSummary },
          ratio,
          p99Ratio: remoteSummary.p99Ms / localSummary.p99Ms,
          met: ratio <= TARGET_REMOTE_EFFECT_RATIO,
        },
        roundTrip,
        bytes,
        acquisition,
      };
    } finally {
      large[Symbol.dispose]();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** A `get-objects` of 50 hashes the copy holds, over both clients, interleaved. */
async function measureRoundTrip(
  url: string,
  seam: EffectRun["store"]["sql"],
): Promise<RemoteResults["roundTrip"]> {
  const hashes = (seam.exec("SELECT hash FROM ws_object LIMIT 50") as { hash: string }[])
    .map((row) => row.hash);
  using connection = await RemoteConnection.open(url);
  await connection.call({ type: "hello", role: "reader" });
  const builtin = new WebSocket(url, WEBSOCKET_PROTOCOL);
  builtin.binaryType = "arraybuffer";
  await new Promise((resolve, reject) => {
    builtin.onopen = resolve;
    builtin.onerror = reject;
  });
  let id = 0;
  const builtinCall = (body: Record<string, unknown>) =>
    new Promise<void>((resolve, reject) => {
      const re = ++id;
      builtin.onmessage = (event) => {
        const { reply } = decodeReply(new Uint8Array(event.data as ArrayBuffer));
        if (reply.re === re && reply.type !== "error") resolve();
        else reject(new Error("Cannot benchmark the built-in WebSocket: an unexpected reply"));
      };
      builtin.send(encodeRequest({ v: 1, id: re, ...body } as Parameters<typeof encodeRequest>[0]));
    });
  await builtinCall({ type: "hello", role: "reader" });
  const request = { type: "get-objects" as const, hashes };
  const [clientMs, builtinMs, pingMs] = await sampleInterleaved([
    async () => {
      const { reply } = await connection.call(request);
      if (reply.objects.length !== hashes.length) throw new Error("Cannot benchmark: short reply");
    },
    () => builtinCall(request),
    async () => {
      await connection.call({ type: "ping" });
    },
  ], ROUND_TRIP_BUDGET);
  builtin.close();
  return {
    client: { name: ROW.client, summary: summarize(clientMs) },
    builtin: { name: ROW.builtin, summary: summarize(builtinMs) },
    ping: { name: ROW.ping, summary: summarize(pingMs) },
    requestBytes: encodeRequest({ v: 1, id: 1, ...request }).length,
  };
}

/** Acquires each run (1,000 and 10,000 files) into new working copies, interleaved. */
async function measureAcquisition(
  urls: readonly string[],
  dir: string,
  proxy: CountingProxy,
): Promise<RemoteResults["acquisition"]> {
  const received = urls.map(() => 0);
  const files = ACQUISITION_DIRS.map((dirs) => dirs * FILES_PER_DIR);
  let copies = 0;
  const last: string[] = [];
  const acquire = async (index: number) => {
    const path = `${dir}/copy-${++copies}.sqlite`;
    const before = proxy.counts.received;
    {
      using connection = await RemoteConnection.open(urls[index]);
      await connection.call({ type: "hello", role: "reader" });
      const run = await readRemoteRun(connection);
      if (!run) throw new Error("Cannot benchmark an acquisition: no run");
      using seam = await openWorkingCopy(path, "the copy");
      await fetchRoot(connection, seam, run.snapshot.record.root, nativeSha256Hex);
      writeWorkingCopy(seam, run, "the copy", nativeSha256Hex);
      const count = (seam.exec("SELECT count(*) AS n FROM ws_inode WHERE kind = 'file'") as {
        n: number;
      }[])[0].n;
      if (count !== files[index]) {
        throw new Error(`Cannot benchmark an acquisition: ${count} files, not ${files[index]}`);
      }
    }
    received[index] = proxy.counts.received - before;
    if (last[index]) await Deno.remove(last[index]).catch(() => {});
    last[index] = path;
  };
  const samples = await sampleInterleaved(
    urls.map((_, index) => () => acquire(index)),
    ACQUISITION_BUDGET,
  );
  const sizes = [];
  for (const [index, ms] of samples.entries()) {
    using seam = (await openRunDatabase(last[index], "the copy", { create: false }))!.seam;
    const root = (seam.exec("SELECT root FROM run") as { root: string }[])[0].root;
    const floorMs: number[] = [];
    for (let i = 0; i < 6; i++) {
      const t0 = performance.now();
      verifyRoot(seam, root, "the copy");
      if (liveRootOf(seam, "the copy", nativeSha256Hex) !== root) {
        throw new Error("Cannot benchmark the floor: the live Workspace is not the root");
      }
      if (i > 0) floorMs.push(performance.now() - t0);
    }
    const summary = summarize(ms);
    sizes.push({
      files: files[index],
      summary,
      msPerFile: summary.medianMs / files[index],
      receivedBytes: received[index],
      floor: summarize({ ms: floorMs }),
    });
  }
  const growth = sizes[1].msPerFile / sizes[0].msPerFile;
  return { sizes, growth, met: growth <= TARGET_ACQUISITION_GROWTH };
}

/** The group's tables: the timed rows, then the checks. */
export function remoteTables(results: RemoteResults): string {
  const { effect, roundTrip, bytes, acquisition } = results;
  const timed = markdownTable(
    ["what", "median ms", "p99 ms", "min ms", "samples"],
    [effect.local, effect.remote, roundTrip.ping, roundTrip.client, roundTrip.builtin].map((
      row,
    ) => [
      row.name,
      fixed(row.summary.medianMs, 3),
      fixed(row.summary.p99Ms, 3),
      fixed(row.summary.minMs, 3),
      String(row.summary.n),
    ]),
    "lrrrr",
  );
  const acquired = markdownTable(
    [
      "files",
      "median ms",
      "p99 ms",
      "min ms",
      "µs/file (median)",
      "MB received",
      "floor ms (verifyRoot + liveRootOf)",
    ],
    acquisition.sizes.map((size) => [
      fixed(size.files, 0),
      fixed(size.summary.medianMs, 1),
      fixed(size.summary.p99Ms, 1),
      fixed(size.summary.minMs, 1),
      fixed(size.msPerFile * 1_000, 1),
      fixed(size.receivedBytes / 1e6, 2),
      fixed(size.floor.medianMs, 1),
    ]),
    "rrrrrrr",
  );
  const largest = acquisition.sizes[acquisition.sizes.length - 1];
  const checks = markdownTable(
    ["check", "measured", "target", "met"],
    [
      [
        "remote ÷ local <File> 1 KiB effect, median",
        `${fixed(effect.ratio, 2)}×`,
        `≤ ${TARGET_REMOTE_EFFECT_RATIO}×`,
        effect.met ? "yes" : "no",
      ],
      ["remote ÷ local <File> 1 KiB effect, p99", `${fixed(effect.p99Ratio, 2)}×`, "(context)", ""],
      [
        "remote ÷ local <File> 1 KiB effect, min (least scheduling wait)",
        `${fixed(effect.remote.summary.minMs / effect.local.summary.minMs, 2)}×`,
        "(context)",
        "",
      ],
      [
        `bytes sent for a one-file change, ${
          fixed(bytes.files, 0)
        } files (max of ${bytes.changes})`,
        `${fixed(bytes.maxSent, 0)} B (median ${fixed(bytes.medianSent, 0)} B)`,
        `≤ ${fixed(bytes.bound, 0)} B (${TARGET_BYTES_FACTOR} × (changed + path trees))`,
        bytes.met ? "yes" : "no",
      ],
      [
        `acquisition per file, ${fixed(largest.files, 0)} ÷ ${
          fixed(acquisition.sizes[0].files, 0)
        } files`,
        `${fixed(acquisition.growth, 2)}×`,
        `≤ ${TARGET_ACQUISITION_GROWTH}×`,
        acquisition.met ? "yes" : "no",
      ],
      [
        `acquisition ÷ its floor, ${fixed(largest.files, 0)} files`,
        `${fixed(largest.summary.medianMs / largest.floor.medianMs, 1)}×`,
        "(context)",
        "",
      ],
      [
        `built-in WebSocket ÷ websocket-client, a ${fixed(roundTrip.requestBytes, 0)}-byte request`,
        `${fixed(roundTrip.builtin.summary.medianMs / roundTrip.client.summary.medianMs, 1)}×`,
        "(context)",
        "",
      ],
    ],
    "lrrl",
  );
  return [timed, acquired, checks].join("\n\n");
}
