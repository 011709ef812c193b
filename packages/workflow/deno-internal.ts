/**
 * `@xmd/workflow/deno/internal`: what the CLI's tests and the bench use of
 * the local provider's insides (the `node:sqlite` seam, opening a run's
 * database, the executor lock, Worker Shell, native SHA-256), and the
 * refusal the CLI makes of an admission Worker's answer. **Unstable**:
 * not part of the public API, no compatibility is promised between versions,
 * and nothing outside this repository should import it; a library user
 * reaches everything it needs from `@xmd/workflow/deno`.
 *
 * @module
 */
export { NodeSqliteSeam } from "./src/deno/node-sqlite-seam.ts";
export { nativeSha256Hex } from "./src/deno/native-sha256.ts";
export {
  type OpenRunDatabase,
  openRunDatabase,
  readConsistently,
  readRunDatabase,
} from "./src/deno/run-database.ts";
export { ExecutorLock } from "./src/deno/executor-lock.ts";
export { WorkerShell, WorkerShellError } from "./src/deno/worker-shell.ts";
export { PrestartedInterpreter } from "./src/deno/worker-shell-prestart.ts";
export { RemoteAdmissionError } from "./src/remote/remote-refusal.ts";
