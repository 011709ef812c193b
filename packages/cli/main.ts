/**
 * The `xmd` executable: wires the real process to {@linkcode main}.
 *
 * @module
 */
import { main } from "./src/deno/cli.ts";
import { processIo } from "./src/deno/command-io.ts";

const controller = new AbortController();
let interrupts = 0;
Deno.addSignalListener("SIGINT", () => {
  // A second Ctrl-C while the first is being handled ends the process at once.
  if (++interrupts > 1) Deno.exit(130);
  controller.abort();
});
Deno.exit(await main(Deno.args, processIo(controller.signal)));
