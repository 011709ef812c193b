/**
 * `@xmd/workflow/internal`: what the CLI, the bench and tests use of the
 * storage engine's insides (the Workspace, its publication and verification,
 * the effect transactions, UTF-8 ordering). **Unstable**: not part of the
 * public API, no compatibility is promised between versions, and nothing
 * outside this repository should import it; a library user reaches
 * everything it needs from `@xmd/workflow`, `@xmd/workflow/deno` and
 * `@xmd/workflow/cloudflare`.
 *
 * @module
 */
export {
  compareUtf8,
  type InodeKind,
  Workspace,
  type WorkspaceOptions,
  type WorkspaceStat,
} from "./src/workspace/workspace.ts";
export { WorkspaceFileSystem } from "./src/execution/workspace-file-system.ts";
export { EffectTransactions } from "./src/execution/effect-transactions.ts";
export type { Frontier, RunChange, RunCommits } from "./src/execution/run-commits.ts";
export { forgetHashes, publishRoot } from "./src/workspace/publish-root.ts";
export type { Sha256, Sha256State } from "./src/workspace/root-format.ts";
export { verifyRoot } from "./src/workspace/verify-root.ts";
export { verifyRun, type VerifyRunOptions } from "./src/execution/verify-run.ts";
