/** @module The alert ledger in memory. */
import type { AlertState } from "../alerts/index.ts";
import type { AlertLedger } from "./index.ts";

/** A ledger in memory: for tests and single runs. */
export class MemoryAlertLedger implements AlertLedger {
  private readonly claimed = new Set<string>();

  async claim(alertId: string, state: AlertState, channel: string): Promise<boolean> {
    const key = JSON.stringify([alertId, state, channel]);
    if (this.claimed.has(key)) return false;
    this.claimed.add(key);
    return true;
  }

  async release(alertId: string, state: AlertState, channel: string): Promise<void> {
    this.claimed.delete(JSON.stringify([alertId, state, channel]));
  }
}
