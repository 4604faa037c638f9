/** @module `plan`, on the schedule: one sweep message per (target, scenario) for this schedule slot. */
import { fanOutSlot, slotSweeps } from "@kneeboard/core/scheduled";
import { deployedConfig, queue } from "./lib/deps.ts";

/** `time` is the schedule's event time; a manual invoke without it plans the current moment. */
export async function handler(event: { time?: string } = {}): Promise<{ slot: string; planned: number }> {
  const summary = await fanOutSlot(slotSweeps(deployedConfig()), event.time ?? Date.now(), queue("SweepQueue"));
  console.log(JSON.stringify({ plan: summary }));
  return summary;
}
