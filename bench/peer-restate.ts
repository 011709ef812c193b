/**
 * A peer durable-execution engine for the step benchmark: Restate, measured
 * locally. A real `restate-server` subprocess (the binary that
 * `@restatedev/restate-server` ships in its platform package) keeps its data
 * under the fixture's folder and listens on free loopback ports; one Restate
 * service (a plain service handler, not the `workflow` type, whose extra
 * per-key state the step count does not need), served by
 * `@restatedev/restate-sdk` under `Deno.serve` in this process, runs `steps`
 * sequential `ctx.run(...)` actions, each returning 1 KiB of text; one
 * workflow is one call of that handler through the ingress, timed until its
 * result is back.
 *
 * Durability: the server runs with its built-in defaults (no config file);
 * only ports, listen mode, node name and telemetry are set. In 1.7 that means
 * a single node with all roles whose log (Bifrost, provider `replicated`,
 * replication 1) is stored by the local log-server in RocksDB with its WAL
 * fsynced (`log-server.rocksdb-disable-wal-fsync = false`); a `ctx.run`
 * result goes to that log before the handler goes on. Traced with `strace`,
 * the server issued about 1.2 `fdatasync` per step (1,854 for 30 workflows
 * of 50 steps), so each step waits for its own sync, like xmd's
 * `synchronous=FULL` commit. The partition store is rebuilt from the log and
 * is not what makes a step durable.
 *
 * Invariant: the server process is killed and awaited on dispose and on any
 * failure while opening, and every timed workflow is checked to have run all
 * of its steps, so a call that did not complete fails the benchmark instead
 * of timing it.
 *
 * @module
 */
// deno.json is not this file's to change, so the peer's packages are pinned inline.
// deno-lint-ignore no-import-prefix
import * as restate from "npm:@restatedev/restate-sdk@1.17.2/fetch";
// Brings the server package, and with it the platform package holding the binary, into Deno's npm cache.
// deno-lint-ignore no-import-prefix
import "npm:@restatedev/restate-server@1.7.12/package.json" with { type: "json" };
import { PAYLOAD_BYTES } from "./durable-effect.ts";
import type { StepPeerFixture } from "./_step-peer.ts";

/** The server package's version, pinned with the import above. */
const SERVER_VERSION = "1.7.12";
/** How long the server may take to start and accept the deployment. */
const START_TIMEOUT_MS = 60_000;
/** How long the server may take to stop after SIGTERM before it is killed. */
const STOP_TIMEOUT_MS = 10_000;

/**
 * The path of the `restate-server` binary in Deno's npm cache (`deno info
 * --json` names it), where the platform package the server package depends
 * on lands when the import above is cached.
 */
export function restateServerBinary(): string {
  const platform = `${Deno.build.os}-${Deno.build.arch === "x86_64" ? "x64" : "arm64"}`;
  const name = `@restatedev/restate-server-${platform}`;
  const info = new Deno.Command(Deno.execPath(), { args: ["info", "--json"], stderr: "null" })
    .outputSync();
  const cache = (JSON.parse(new TextDecoder().decode(info.stdout)) as { npmCache?: string })
    .npmCache;
  const path = `${cache}/registry.npmjs.org/${name}/${SERVER_VERSION}/bin/restate-server`;
  try {
    if (cache && Deno.statSync(path).isFile) return path;
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  throw new Error(
    `Cannot find the Restate server "${path}": ${name}@${SERVER_VERSION} is not in Deno's npm cache; run \`deno cache --lock=dev.lock bench/peer-restate.ts\``,
  );
}

/** 1 KiB of text, different for each step (its first 8 characters are the step number). */
function payload(step: number): string {
  const line = "the quick brown fox jumps over the lazy dog, again and again\n";
  return (String(step).padStart(8, "0") + line.repeat(20)).slice(0, PAYLOAD_BYTES);
}

/** A loopback TCP port that was free a moment ago. */
function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** The last `limit` characters a stream wrote, kept for error messages. */
function tail(stream: ReadableStream<Uint8Array>, limit = 4_000): () => string {
  let text = "";
  (async () => {
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      text = (text + chunk).slice(-limit);
    }
  })();
  return () => text;
}

/** Polls `url` until it answers 2xx, or fails once `deadline` passes or the server has exited. */
async function waitFor(
  url: string,
  deadline: number,
  exited: () => boolean,
  output: () => string,
): Promise<void> {
  let last = "no answer";
  while (performance.now() < deadline && !exited()) {
    try {
      const response = await fetch(url);
      await response.body?.cancel();
      if (response.ok) return;
      last = `HTTP ${response.status}`;
    } catch (error) {
      last = String(error);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (exited()) last = "the server exited";
  throw new Error(`Cannot reach the Restate server at "${url}": ${last}\n${output()}`);
}

/**
 * How the server reaches the service: `http2` is Restate's bidirectional
 * stream over one HTTP/2 (cleartext) request per invocation, the SDK's usual
 * deployment, where each `ctx.run` result is acknowledged on the open stream;
 * `http1.1` is request-response, where the invocation suspends after each
 * `ctx.run` and the server calls the service again with the journal so far.
 */
export type RestateTransport = "http2" | "http1.1";

/**
 * Starts a Restate server with its data in `dir` and a service of `steps`
 * sequential `ctx.run` steps, registered over `transport`.
 */
export async function openRestatePeer(
  dir: string,
  steps = 50,
  transport: RestateTransport = "http2",
): Promise<StepPeerFixture> {
  const service = restate.service({
    name: "Bench",
    handlers: {
      run: async (ctx: restate.Context): Promise<number> => {
        let bytes = 0;
        for (let step = 0; step < steps; step++) {
          bytes += (await ctx.run("step", () => payload(step))).length;
        }
        return bytes;
      },
    },
  });
  const handler = restate.createEndpointHandler({
    services: [service],
    bidirectional: transport === "http2",
    // The SDK logs every suspension and replay at info level; that is not the engine's cost.
    logger: (meta, message, ...rest) => {
      if (meta.level === "warn" || meta.level === "error") console.error(message, ...rest);
    },
  });
  const endpoint = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (request) => handler(request),
  );

  const [admin, ingress, fabric] = [freePort(), freePort(), freePort()];
  const server = new Deno.Command(restateServerBinary(), {
    args: ["--base-dir", `${dir}/restate-data`, "--node-name", "bench", "--no-logo"],
    env: {
      RESTATE_LISTEN_MODE: "tcp",
      RESTATE_ADMIN__BIND_ADDRESS: `127.0.0.1:${admin}`,
      RESTATE_INGRESS__BIND_ADDRESS: `127.0.0.1:${ingress}`,
      RESTATE_BIND_ADDRESS: `127.0.0.1:${fabric}`,
      RESTATE_ADVERTISED_ADDRESS: `http://127.0.0.1:${fabric}/`,
      RESTATE_DISABLE_TELEMETRY: "true",
    },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stdout = tail(server.stdout);
  const stderr = tail(server.stderr);
  let exited = false;
  server.status.then(() => exited = true);
  const output = () => `--- restate-server stdout ---\n${stdout()}\n--- stderr ---\n${stderr()}`;

  const stop = async () => {
    const deadline = setTimeout(() => {
      try {
        server.kill("SIGKILL");
      } catch {
        // Already gone.
      }
    }, STOP_TIMEOUT_MS);
    try {
      server.kill("SIGTERM");
    } catch {
      // Already gone.
    }
    await server.status;
    clearTimeout(deadline);
    await endpoint.shutdown();
  };

  try {
    const deadline = performance.now() + START_TIMEOUT_MS;
    await waitFor(`http://127.0.0.1:${admin}/health`, deadline, () => exited, output);
    await waitFor(`http://127.0.0.1:${ingress}/restate/health`, deadline, () => exited, output);
    const registered = await fetch(`http://127.0.0.1:${admin}/deployments`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        uri: `http://127.0.0.1:${endpoint.addr.port}/`,
        use_http_11: transport === "http1.1",
      }),
    });
    if (!registered.ok) {
      throw new Error(
        `Cannot register the bench deployment: HTTP ${registered.status} ${await registered
          .text()}`,
      );
    }
    await registered.body?.cancel();
  } catch (error) {
    await stop();
    throw error;
  }

  const url = `http://127.0.0.1:${ingress}/Bench/run`;
  return {
    steps,
    name: `Restate ${SERVER_VERSION} ctx.run (local server, default durability, ${
      transport === "http2" ? "HTTP/2 bidirectional" : "HTTP/1.1 request-response"
    })`,
    runWorkflow: async () => {
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "null",
      });
      const text = await response.text();
      if (!response.ok || Number(text) !== steps * PAYLOAD_BYTES) {
        throw new Error(`Cannot trust the Restate workflow: HTTP ${response.status} ${text}`);
      }
    },
    [Symbol.asyncDispose]: stop,
  };
}

if (import.meta.main) {
  const { fixed, sample, summarize } = await import("./_stats.ts");
  for (const transport of ["http2", "http1.1"] as const) {
    const dir = await Deno.makeTempDir({ prefix: "xmd-peer-restate-" });
    try {
      await using peer = await openRestatePeer(dir, 50, transport);
      const summary = summarize(
        await sample(() => peer.runWorkflow(), {
          warmupCalls: 10,
          warmupMs: 0,
          minSamples: 20,
          budgetMs: 0,
          maxSamples: 20,
        }),
      );
      const ms = (value: number) => `${fixed(value, 3)} ms`;
      console.log(`${peer.name}, ${peer.steps} steps, n=${summary.n}`);
      console.log(`  per workflow: median ${ms(summary.medianMs)}, p99 ${ms(summary.p99Ms)}`);
      console.log(
        `  per step:     median ${ms(summary.medianMs / peer.steps)}, p99 ${
          ms(summary.p99Ms / peer.steps)
        }`,
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }
}
