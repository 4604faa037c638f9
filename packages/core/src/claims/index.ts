/**
 * @module Run claims: a run is claimed before its first request, so a duplicate delivery of the same
 * schedule slot finds the claim and exits, and a claim whose worker died expires so the slot can be
 * retried. The port and the slot's run id; the folder implementation is in `folder.ts`.
 */
import { createHash } from "node:crypto";
import { KneeboardError } from "../errors/index.ts";
import { compactTimestamp } from "../run/index.ts";

/** `claimed`: the caller owns the run now. `held`: another owner's lease is live. `done`: the run completed. */
export type ClaimResult = "claimed" | "held" | "done";

export interface ClaimOptions {
  targetId: string;
  /** Who claims (e.g. the invocation's request id); only the owner may complete or release. */
  owner: string;
  /** Now, in ms since the epoch (injected so tests drive the clock). */
  nowMs: number;
  /** How long the lease lasts, ms; past `nowMs + ttlMs` another owner may take the run over. */
  ttlMs: number;
}

/** Where runs are claimed, completed and released. */
export interface RunClaims {
  /**
   * Claims runId when nobody holds it or the holder's lease ran out, and it is not done. The same
   * owner claiming again renews its lease.
   */
  claim(runId: string, options: ClaimOptions): Promise<ClaimResult>;
  /** Marks the run done (after its document and index entry are written); later claims get `done`. */
  complete(runId: string, owner: string): Promise<void>;
  /** Gives the claim up so the slot can be retried at once; a no-op when owner no longer holds it. */
  release(runId: string, owner: string): Promise<void>;
  /**
   * Moves the claim from `fromOwner` to `options.owner` with a fresh lease, whether or not the old
   * lease is live, as long as `fromOwner` still holds it and the run is not done (a continued sweep's
   * next invocation takes over from the one before). Of several takers from one holder, exactly one
   * gets `claimed`; the rest get `held` (or `done`).
   */
  handOver(runId: string, fromOwner: string, options: ClaimOptions): Promise<ClaimResult>;
}

/** The claim is not the caller's (it expired and another owner took it, or it never was). */
export class ClaimError extends KneeboardError {
  override name = "ClaimError";
}

/**
 * The run id of a (target, scenario)'s schedule slot: the slot's compact time and a short hash of
 * target and slot (`20250101T060000Z-3f9a0c12d4`); for a scenario other than `chat` the scenario
 * too, in the id and the hash (`20250101T060000Z-rag-7c1e...`), so `chat` ids stay what they were.
 * Deterministic, so every delivery of one slot claims one id; safe as a key segment whatever the target id holds.
 */
export function slotRunId(targetId: string, slotIso: string, scenario = "chat"): string {
  const slot = new Date(slotIso);
  if (Number.isNaN(slot.getTime())) throw new KneeboardError(`invalid schedule slot: ${slotIso}`);
  const normalized = slot.toISOString();
  const series = scenario === "chat" ? targetId : `${targetId}\n${scenario}`;
  const hash = createHash("sha256").update(`${series}\n${normalized}`).digest("hex").slice(0, 10);
  return scenario === "chat"
    ? `${compactTimestamp(normalized)}-${hash}`
    : `${compactTimestamp(normalized)}-${scenario}-${hash}`;
}
