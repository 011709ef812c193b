/**
 * WF-14: the executor lock, released, is free at once for the same process,
 * even while another thread of it keeps spawning subprocesses.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ExecutorLock } from "./executor-lock.ts";

Deno.test("WF-14 a released executor lock is free at once, even while another thread spawns subprocesses", async () => {
  const dir = await Deno.makeTempDir({ prefix: "xmd-lock-" });
  const spawner = new Worker(new URL("./_test-spawner.ts", import.meta.url), { type: "module" });
  try {
    const finished = new Promise<number>((resolve) => spawner.onmessage = (m) => resolve(m.data));
    spawner.postMessage("start");
    const path = join(dir, "run.sqlite.lock");
    let refused = 0;
    for (let attempt = 0; attempt < 300; attempt++) {
      try {
        using _lock = await ExecutorLock.acquire(path, "lock");
      } catch {
        refused++;
      }
    }
    spawner.postMessage("stop");
    assert.ok(await finished > 0, "subprocesses were spawned meanwhile");
    assert.equal(refused, 0, "no acquisition after a release was refused");
    // The lock still excludes: held, a second acquisition is refused.
    using _held = await ExecutorLock.acquire(path, "lock");
    await assert.rejects(ExecutorLock.acquire(path, "lock"), /already running/);
  } finally {
    spawner.terminate();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("WF-28 the probe tells a held lock from a free one, and an executor starts past a probe", async () => {
  const dir = await Deno.makeTempDir({ prefix: "xmd-lock-probe-" });
  try {
    const path = join(dir, "run.sqlite.lock");
    assert.equal(ExecutorLock.probe(path), false, "no lock file: no executor");
    {
      using _held = await ExecutorLock.acquire(path, "probed");
      assert.equal(ExecutorLock.probe(path), true);
    }
    assert.equal(ExecutorLock.probe(path), false, "released: no executor");
    // A probe holds a shared lock for an instant; here, for 10 ms. The executor waits it out.
    const probe = Deno.openSync(path, { read: true });
    assert.ok(probe.tryLockSync(false));
    const released = new Promise((resolve) => setTimeout(() => resolve(probe.unlockSync()), 10));
    try {
      using _lock = await ExecutorLock.acquire(path, "probed");
      assert.equal(ExecutorLock.probe(path), true);
    } finally {
      await released;
      probe.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
