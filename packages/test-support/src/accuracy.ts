/**
 * @module The accuracy kneeboard promises, as the real-time tests check it: a level that does not flag
 * its own client has figures within the promised tolerance of the truth (TTFT 10 ms + 3 %, per-stream
 * and aggregate 3 %); a level that flags it (`client.limited`, which a loaded machine may bring) is
 * flagged for a reason its own recorded figures bear out. A run's status is held the same way: what
 * the test expects, or failed only because every level flagged its client.
 */
import {
  distribution,
  invalidCodes,
  isClientReason,
  PER_STREAM_TOLERANCE_SHARE,
  TTFT_TOLERANCE_MS,
  TTFT_TOLERANCE_SHARE,
} from "@kneeboard/core/metrics";
import {
  concurrencyOf,
  type InvalidCode,
  type InvalidReason,
  type Level,
  levelSchedule,
  type RunDocument,
  type Sample,
  type SloRecord,
} from "@kneeboard/core/run";
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

/** Why one `client_` reason does not stand on the level's own figures, in words; null when it does. */
function clientReasonMiss(level: Level, reason: InvalidReason): string | null {
  const c = level.client;
  const over = (what: string, figure: number, limit: number, recorded: number | null | undefined) =>
    !(figure > limit)
      ? `${reason.code}: ${what} ${figure} is not over its limit ${limit}`
      : recorded !== undefined && figure !== recorded
        ? `${reason.code}: ${what} ${figure} is not the level's recorded ${recorded}`
        : null;
  const limitIs = (what: string, limit: number, expected: number) =>
    Math.abs(limit - expected) > 1e-9 ? `${reason.code}: ${what} ${limit} is not the level's ${expected}` : null;
  switch (reason.code) {
    case "client_lag":
      return over("event loop lag p99", reason.detail.eventLoopLagP99Ms, reason.detail.limitMs, c.eventLoopLagP99Ms);
    case "client_loop_busy":
      return over("loop utilization", reason.detail.loopUtilization, reason.detail.limitShare, c.loopUtilization);
    case "client_read_delay":
      return (
        over("read delay", reason.detail.readDelayMs, reason.detail.toleranceMs, c.readDelayMs) ??
        limitIs("TTFT tolerance", reason.detail.toleranceMs, ttftToleranceMs(level.ttftMs.p50 ?? 0))
      );
    case "client_first_token_delay":
      return (
        over(
          "first-token read delay",
          reason.detail.firstTokenReadDelayMs,
          reason.detail.toleranceMs,
          c.firstTokenReadDelayMs,
        ) ?? limitIs("TTFT tolerance", reason.detail.toleranceMs, ttftToleranceMs(level.ttftMs.p50 ?? 0))
      );
    case "client_read_delay_per_stream":
      return (
        over("read delay", reason.detail.readDelayMs, reason.detail.toleranceMs, c.readDelayMs) ??
        limitIs("per-stream tolerance", reason.detail.toleranceMs, PER_STREAM_TOLERANCE_SHARE * (level.e2eMs.p50 ?? 0))
      );
    case "client_concurrency": {
      const { achievedConcurrency, concurrency, minShare } = reason.detail;
      if (concurrencyOf(level.load) !== concurrency)
        return `client_concurrency: N ${concurrency} is not the level's load`;
      return (
        over("shortfall of achieved concurrency", minShare * concurrency - achievedConcurrency, 0, undefined) ??
        (achievedConcurrency === level.achievedConcurrency
          ? null
          : `client_concurrency: achieved ${achievedConcurrency} is not the level's ${level.achievedConcurrency}`)
      );
    }
    case "client_schedule_lag":
      return over(
        "schedule lag p99",
        reason.detail.scheduleLagP99Ms,
        reason.detail.toleranceMs,
        levelSchedule(level)?.scheduleLagMs?.p99,
      );
    default:
      return `${reason.code} is not a reason of the client's own`;
  }
}

/**
 * What is wrong with how `level` flags its own client, in words; empty when right: `client.limited` is
 * set exactly when `invalid` holds a `client_` reason, and each such reason stands on the level's own
 * recorded figures (over its limit, the limit the level's TTFT or e2e makes). A test on a loaded
 * machine holds a flagged level to this instead of to the truth.
 */
export function clientFlagProblems(level: Level): string[] {
  const own = level.invalid.filter((r) => isClientReason(r.code));
  const problems: string[] = [];
  if (level.client.limited !== own.length > 0)
    problems.push(`client.limited is ${level.client.limited} with client reasons [${own.map((r) => r.code)}]`);
  for (const reason of own) {
    const miss = clientReasonMiss(level, reason);
    if (miss) problems.push(miss);
  }
  return problems;
}

/**
 * A level against the server's record, in words; empty when right. A level that does not flag its
 * client must be within tolerance (`error.withinTolerance`); one that flags it must be flagged for a
 * reason its figures bear out (`clientFlagProblems`), and then its figures are not held to the truth.
 */
export function accuracyProblems(level: Level, error: ClientError): string[] {
  const flag = clientFlagProblems(level);
  if (level.client.limited) return flag;
  return error.withinTolerance ? flag : [...flag, `not flagged, yet off the server's record: ${JSON.stringify(error)}`];
}

/**
 * Why `doc` did not end `expected`, in words; empty when it did, or when it failed only because its
 * client flagged itself: every level invalid for `client_` reasons alone, each standing on the level's
 * figures. A test whose outcome is not about the client's health asserts this, not the bare status.
 */
export function statusProblems(doc: Pick<RunDocument, "status" | "levels">, expected: RunDocument["status"]): string[] {
  if (doc.status === expected) return [];
  const clientOnly =
    doc.status === "failed" &&
    doc.levels.length > 0 &&
    doc.levels.every((l) => l.client.limited && reasonsBesidesClient(l).length === 0);
  if (!clientOnly)
    return [
      `status ${doc.status}, not ${expected}: ${JSON.stringify(doc.levels.map((l) => [l.level, l.invalidReasons]))}`,
    ];
  return doc.levels.flatMap((l) => clientFlagProblems(l).map((p) => `level ${l.level}: ${p}`));
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
 * Whether the server's record of `samples` (their level's ok ones) meets `slo`: the true per-stream
 * p50 (tokens over last token written minus send) at least its minimum and the true TTFT p95 (first
 * token written minus send) at most its maximum. Null where either lies within the client's tolerance
 * of its bound (3 %, 10 ms + 3 %): there a fair measure may come out either side. A loaded machine
 * slows the server too; its record, not its profile, is what the level should have found.
 */
export function recordedSloVerdict(
  samples: Sample[],
  timings: ResponseTiming[],
  originMs: number,
  slo: SloRecord,
): boolean | null {
  const byId = new Map(timings.map((t) => [t.responseId, t]));
  const ttft: number[] = [];
  const perStream: number[] = [];
  for (const s of samples) {
    const t = s.responseId ? byId.get(s.responseId) : undefined;
    if (s.outcome !== "ok" || !t || t.firstTokenAtMs === null || t.lastTokenAtMs === null) continue;
    const sentAtMs = originMs + s.startMs;
    ttft.push(t.firstTokenAtMs - sentAtMs);
    perStream.push(t.tokens / ((t.lastTokenAtMs - sentAtMs) / 1000));
  }
  const perStreamP50 = distribution(perStream).p50;
  const ttftP95 = distribution(ttft).p95;
  if (perStreamP50 === null || ttftP95 === null) return null;
  const nearRate = Math.abs(perStreamP50 / slo.minOutputTokensPerSecond - 1) <= PER_STREAM_TOLERANCE_SHARE;
  const { maxTtftMs } = slo;
  const nearTtft = maxTtftMs !== null && Math.abs(ttftP95 - maxTtftMs) <= ttftToleranceMs(maxTtftMs);
  if (nearRate || nearTtft) return null;
  return perStreamP50 >= slo.minOutputTokensPerSecond && (maxTtftMs === null || ttftP95 <= maxTtftMs);
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
