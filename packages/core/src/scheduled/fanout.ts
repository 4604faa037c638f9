/** @module Fanning one schedule slot out: one sweep message per target, grouped by target on the FIFO queue. */
import { slotRunId } from "../claims/index.ts";
import { KneeboardError } from "../errors/index.ts";
import type { MessageQueue, OutgoingMessage, SweepMessage } from "./messages.ts";

/** The message that starts a target's sweep for a slot. */
export function sweepMessageFor(targetId: string, slot: string): OutgoingMessage {
  const message: SweepMessage = { targetId, slot };
  return {
    body: JSON.stringify(message),
    // One target's sweeps never overlap (one group, in order); different targets run side by side.
    groupId: targetId,
    deduplicationId: slotRunId(targetId, slot),
  };
}

/**
 * Sends one sweep message per target for the slot that starts at `time` (an ISO time or epoch ms;
 * normalized to ISO 8601 UTC). Returns the slot and how many were sent
 * (`planned`: what the `plan` function reports).
 */
export async function fanOutSlot(
  targetIds: readonly string[],
  time: string | number,
  queue: MessageQueue,
): Promise<{ slot: string; planned: number }> {
  const when = new Date(time);
  if (Number.isNaN(when.getTime())) throw new KneeboardError(`invalid schedule time: ${String(time)}`);
  const slot = when.toISOString();
  await queue.send(...targetIds.map((id) => sweepMessageFor(id, slot)));
  return { slot, planned: targetIds.length };
}
