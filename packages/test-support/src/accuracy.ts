/**
 * @module The accuracy kneeboard promises, as the real-time tests check it: a level's figures are within
 * the promised tolerance of the truth (TTFT 10 ms + 3 %, per-stream and aggregate 3 %), or the level
 * says its own client may have bent them (`client.limited`). A loaded machine may take the second way;
 * a client that bends the figures and does not say so fails either way.
 */
import {
  invalidCodes,
  isClientReason,
  PER_STREAM_TOLERANCE_SHARE,
  TTFT_TOLERANCE_MS,
  TTFT_TOLERANCE_SHARE,
} from "@kneeboard/core/metrics";
import type { InvalidCode, Level, Sample } from "@kneeboard/core/run";
import { epochScheduler, type Scheduler } from "@kneeboard/core/scheduler";
import type { ResponseTiming } from "@kneeboard/reference";

/** What a level should have measured. */
export interface LevelTruth {
  ttftMs: number;
  /** Answer TTFT (reasoning excluded), checked when given. */
  ttftAnswerMs?: number;
  perStreamOutputTokensPerSecond?: number;
  aggregateOutputTokensPerSecond?: number;
}

/** The figures of `level` outside kneeboard's tolerance of `truth`, in words; empty when all are within. */
export function accuracyMisses(level: Level, truth: LevelTruth): string[] {
  const misses: string[] = [];
  const ttftMiss = (name: string, measured: number | null | undefined, expected: number) => {
    const tolerance = TTFT_TOLERANCE_MS + TTFT_TOLERANCE_SHARE * expected;
    if (!(Math.abs((measured ?? Number.NaN) - expected) <= tolerance))
      misses.push(`${name} p50 ${measured} ms against ${expected} (tolerance ${tolerance})`);
  };
  ttftMiss("TTFT", level.ttftMs.p50, truth.ttftMs);
  if (truth.ttftAnswerMs !== undefined) ttftMiss("answer TTFT", level.ttftAnswerMs?.p50, truth.ttftAnswerMs);
  const relative = (measured: number | null, expected: number) =>
    Math.abs((measured ?? Number.NaN) - expected) / expected;
  const perStream = level.perStream.outputTokensPerSecond.p50;
  const perStreamTruth = truth.perStreamOutputTokensPerSecond;
  if (perStreamTruth !== undefined && !(relative(perStream, perStreamTruth) <= PER_STREAM_TOLERANCE_SHARE))
    misses.push(`per-stream p50 ${perStream} tok/s against ${perStreamTruth}`);
  const aggregate = truth.aggregateOutputTokensPerSecond;
  if (
    aggregate !== undefined &&
    !(relative(level.aggregateOutputTokensPerSecond, aggregate) <= PER_STREAM_TOLERANCE_SHARE)
  )
    misses.push(`aggregate ${level.aggregateOutputTokensPerSecond} tok/s against ${aggregate}`);
  return misses;
}

/**
 * The misses the level did not own up to: empty when within tolerance, or when `client.limited` says
 * the client may have bent them (its reasons are kept in `invalid`, with `client_` codes).
 */
export function unflaggedMisses(level: Level, truth: LevelTruth): string[] {
  return level.client.limited ? [] : accuracyMisses(level, truth);
}

/** The codes of the level's invalid reasons other than its client's own limits (which a loaded machine may add). */
export function reasonsBesidesClient(level: Level): InvalidCode[] {
  return invalidCodes(level).filter((code) => !isClientReason(code));
}

/** TTFT error tolerance, ms: 10 ms plus 3 % of the true TTFT. */
export const ttftToleranceMs = (trueTtftMs: number) => TTFT_TOLERANCE_MS + TTFT_TOLERANCE_SHARE * trueTtftMs;

/** A level's client error against the server's record, matched by response id (times on one epoch clock). */
export interface ClientError {
  /**
   * Median over ok samples of the client's first content read minus the server's first token write,
   * ms: the delay the client itself added to TTFT (the server's own queueing stays in the truth).
   */
  ttftErrorMs: number;
  /** Median of client TTFT minus the server's (first token written minus request arrived), ms: includes the server's accept delay. */
  ttftVsServerMs: number;
  /** Median true TTFT (first token written minus the client's send), ms: the 3 % of the tolerance is taken of it. */
  trueTtftMs: number;
  /** Median over ok samples of client per-stream tok/s over the truth (tokens / (last token written minus send)), minus 1. */
  perStreamError: number;
  /** Ok samples the record matched. */
  matched: number;
  /** TTFT error within 10 ms + 3 % and per-stream within 3 %. */
  withinTolerance: boolean;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length === 0
    ? Number.NaN
    : s.length % 2
      ? (s[mid] as number)
      : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};

/**
 * What the client itself added, against what the server did (its record of when it wrote each token),
 * so a server slowed by a loaded machine stays in the truth. `originMs`: the epoch ms that sample
 * `startMs` values are relative to.
 */
export function clientError(samples: Sample[], timings: ResponseTiming[], originMs: number): ClientError {
  const byId = new Map(timings.map((t) => [t.responseId, t]));
  const ttft: number[] = [];
  const vsServer: number[] = [];
  const trueTtft: number[] = [];
  const perStream: number[] = [];
  for (const s of samples) {
    const t = s.responseId ? byId.get(s.responseId) : undefined;
    if (s.outcome !== "ok" || !t || t.firstTokenAtMs === null || t.lastTokenAtMs === null) continue;
    if (s.ttftMs === null || s.outputTokensPerSecond === null) continue;
    const sentAtMs = originMs + s.startMs;
    ttft.push(sentAtMs + s.ttftMs - t.firstTokenAtMs);
    vsServer.push(s.ttftMs - (t.firstTokenAtMs - t.arrivedAtMs));
    trueTtft.push(t.firstTokenAtMs - sentAtMs);
    perStream.push(s.outputTokensPerSecond / (t.tokens / ((t.lastTokenAtMs - sentAtMs) / 1000)) - 1);
  }
  const ttftErrorMs = median(ttft);
  const trueTtftMs = median(trueTtft);
  const perStreamError = median(perStream);
  return {
    ttftErrorMs,
    ttftVsServerMs: median(vsServer),
    trueTtftMs,
    perStreamError,
    matched: ttft.length,
    withinTolerance:
      Math.abs(ttftErrorMs) <= ttftToleranceMs(trueTtftMs) && Math.abs(perStreamError) <= PER_STREAM_TOLERANCE_SHARE,
  };
}

/**
 * A scheduler on epoch ms (the reference server's time base), remembering its first reading: a
 * sweep's origin. Worker threads rebuild it on the same base.
 */
export function epochClock(): Scheduler & { originMs: number | null } {
  const epoch = epochScheduler();
  const clock = {
    ...epoch,
    originMs: null as number | null,
    now() {
      const now = epoch.now();
      clock.originMs ??= now;
      return now;
    },
  };
  return clock;
}
