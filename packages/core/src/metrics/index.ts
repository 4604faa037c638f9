/**
 * @module Pure statistics of a sweep (docs/methodology.md): per sample, per level and per run; no I/O,
 * no clock. This file only re-exports them: distributions (`distribution.ts`), a request's figures
 * (`sample.ts`), validity (`validity.ts`), cost and SLO (`cost.ts`), a level (`level.ts`), a run (`run.ts`).
 */
export {
  CACHE_PREFILL_SHARE_DIVISOR,
  type ConversationInput,
  cacheVerdict,
  conversationFigures,
  MIN_PROMPT_RATIO,
  MIN_TURN_SAMPLES,
} from "./conversation.ts";
export { DEFAULT_SLO, withinTtftLimit } from "./cost.ts";
export { distribution } from "./distribution.ts";
export { type LevelInput, summarizeLevel } from "./level.ts";
export { type EarlyResult, KNEE_GAIN_THRESHOLD, kneeIndex, levelStop, summarizeRun } from "./run.ts";
export { type ContentChunk, deriveSampleFigures, type SampleFigures, type SampleTimings } from "./sample.ts";
export {
  CLIENT_LAG_LIMIT_MS,
  clientDelay,
  EARLY_FAILURE_REQUESTS,
  FIRST_TOKEN_READ_DELAY_MARGIN,
  invalidCodes,
  invalidReasonText,
  isClientReason,
  judgeValidity,
  MAX_CACHED_PROMPT_SHARE,
  MAX_FAILURE_RATE,
  MAX_LOOP_UTILIZATION,
  MAX_RATE_LIMITED_RATE,
  MAX_ROUTE_MISMATCH_RATE,
  MIN_ACHIEVED_CONCURRENCY_RATIO,
  MIN_OPEN_LOOP_REQUESTS,
  OPEN_RATE_MARGIN_SIGMAS,
  openRateMarginPerSecond,
  PER_STREAM_TOLERANCE_SHARE,
  READ_DELAY_PER_LOOP_DELAY,
  TTFT_TOLERANCE_MS,
  TTFT_TOLERANCE_SHARE,
  VALIDITY_RULES,
  type ValidityFigures,
} from "./validity.ts";
