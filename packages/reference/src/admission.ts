/**
 * @module Admission: whether a routed chat request is served, by its model's profile. Before any
 * answer: the deterministic refusals, the token-bucket rate limit, tools refused, an endpoint that
 * hangs, and a slow tail's gateway that gives up at its first-byte timeout.
 */
import type { Served } from "./routing.ts";

/** What the server counts of the requests it turned away. */
export interface AdmissionTally {
  /** Tool requests refused (`tools.refuse`). */
  toolRefusals: number;
  /** Requests answered 504 by a `slowTail`'s `giveUpAfterMs`. */
  tailFailures: number;
}

/**
 * The verdict on one request: refused at once (an error response), held open unanswered (`stall`),
 * answered 504 after `afterMs` (a slow tail given up on), or served, after `tailDelayMs`.
 */
export type Admission =
  | { verdict: "refused"; status: number; message: string; headers: Record<string, string> }
  | { verdict: "held" }
  | { verdict: "given_up"; afterMs: number }
  | { verdict: "served"; tailDelayMs: number };

/** Admits a request that arrived for `target` (counted as arrived here), counting what it turns away in `tally`. */
export function admit(target: Served, body: Record<string, unknown>, tally: AdmissionTally): Admission {
  target.arrived++;
  const refused = refusal(target);
  if (refused) return { verdict: "refused", message: "refused by the reference profile", ...refused };
  const retryAfter = takeToken(target);
  if (retryAfter !== null)
    return {
      verdict: "refused",
      status: 429,
      message: "rate limit reached",
      headers: { "retry-after": String(retryAfter) },
    };
  if (target.profile.tools?.refuse && Array.isArray(body.tools)) {
    tally.toolRefusals++;
    return { verdict: "refused", status: 400, message: "tools are not supported by this model", headers: {} };
  }
  // A hanging endpoint: the response stays open until the client gives up or the server closes.
  if (target.profile.stall) return { verdict: "held" };
  const tail = target.profile.slowTail;
  const tailDelayMs = tail ? (tail.delaysMs[(target.arrived - 1) % tail.period] ?? 0) : 0;
  if (tail?.giveUpAfterMs !== undefined && tailDelayMs >= tail.giveUpAfterMs) {
    tally.tailFailures++;
    return { verdict: "given_up", afterMs: tail.giveUpAfterMs };
  }
  return { verdict: "served", tailDelayMs };
}

/** The response a `refuse` profile gives the request that just arrived, or null to serve it. */
function refusal(served: Served): { status: number; headers: Record<string, string> } | null {
  const refuse = served.profile.refuse;
  if (!refuse) return null;
  const byCount = refuse.every !== undefined && served.arrived % refuse.every === 0;
  const byLoad = refuse.whenInFlightAtLeast !== undefined && served.serving >= refuse.whenInFlightAtLeast;
  if (!byCount && !byLoad) return null;
  const headers: Record<string, string> =
    refuse.retryAfterSeconds !== undefined ? { "retry-after": String(refuse.retryAfterSeconds) } : {};
  return { status: refuse.status, headers };
}

/** Takes a token from the model's bucket: null when one was there, else the seconds until one is (`retry-after`). */
function takeToken(served: Served): number | null {
  const limit = served.profile.rateLimit;
  if (!limit) return null;
  const now = performance.now();
  served.bucket ??= { tokens: limit.burst, lastMs: now };
  served.bucket.tokens = Math.min(
    limit.burst,
    served.bucket.tokens + ((now - served.bucket.lastMs) / 1000) * limit.requestsPerSecond,
  );
  served.bucket.lastMs = now;
  if (served.bucket.tokens >= 1) {
    served.bucket.tokens -= 1;
    return null;
  }
  return Math.max(1, Math.ceil((1 - served.bucket.tokens) / limit.requestsPerSecond));
}
