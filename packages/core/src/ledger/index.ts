/**
 * @module The alert ledger port: which alert states were delivered on which channel. Adapters:
 * `store.ts` (in the store), `memory.ts`, and DynamoDB in `aws/`.
 */
import type { AlertState } from "../alerts/index.ts";

/**
 * Remembers which alert states were delivered, so a retry never delivers twice.
 * `claim` returns true exactly once per (alertId, state, channel), until that claim is released.
 */
export interface AlertLedger {
  claim(alertId: string, state: AlertState, channel: string): Promise<boolean>;
  /**
   * Undoes a claim whose delivery failed, so the next run claims and sends it again.
   * Releasing a claim that does not exist does nothing.
   */
  release(alertId: string, state: AlertState, channel: string): Promise<void>;
}
