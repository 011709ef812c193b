/**
 * The `xmd` executable: wires the real process to {@linkcode main}.
 *
 * @module
 */
import { main } from "./src/deno/cli.ts";
import { processIo } from "./src/deno/command-io.ts";

const controller = new AbortController();
let interrupts = 0;
/** Ctrl-C, or a service manager's stop (SIGTERM): the running effect is cancelled, the run interrupted. */
function interrupt(): void {
  // A second signal while the first is being handled ends the process at once.
  if (++interrupts > 1) Deno.exit(130);
  controller.abort();
}
Deno.addSignalListener("SIGINT", interrupt);
// Windows delivers no SIGTERM to listen for.
if (Deno.build.os !== "windows") Deno.addSignalListener("SIGTERM", interrupt);
Deno.exit(await main(Deno.args, processIo(controller.signal)));
