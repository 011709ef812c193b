/**
 * The shape every engine of the step comparison (`peers.ts`) is measured in.
 *
 * @module
 */

/** One engine, ready to run whole workflows of sequential durable steps. */
export interface StepPeerFixture extends AsyncDisposable {
  /**
   * Starts one new workflow of `steps` sequential durable steps, each
   * producing 1,024 bytes, and resolves once it has completed (checked).
   */
  runWorkflow(): Promise<void>;
  /** Durable steps in one workflow. */
  readonly steps: number;
  /** What is measured, for the report's row. */
  readonly name: string;
}
