/**
 * Test support: a Worker that spawns `true` subprocesses back to back until
 * told to stop, so a test can act while another thread of its process keeps
 * forking (each fork holds a copy of every descriptor until it execs).
 *
 * @module
 */
/// <reference lib="deno.worker" />

let running = true;
self.onmessage = async (message: MessageEvent<"start" | "stop">) => {
  if (message.data === "stop") {
    running = false;
    return;
  }
  let spawned = 0;
  while (running) {
    await new Deno.Command("true").output();
    spawned++;
  }
  self.postMessage(spawned);
};
