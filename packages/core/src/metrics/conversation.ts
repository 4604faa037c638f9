/**
 * @module A conversation level's figures by turn and its prompt-cache verdict
 * (docs/methodology.md#conversations); pure.
 */
import type { CacheVerdict, ConversationTurns, Sample, TurnFigures } from "../run/index.ts";
import { distribution } from "./distribution.ts";

/** A turn is compared only with at least this many ok samples: a p50 of one or two requests is one request's luck. */
export const MIN_TURN_SAMPLES = 3;

/**
 * The history must grow the compared turn's prompt by at least this ratio for TTFT to tell a cache:
 * at 1.4 the growth threshold (`1 + (promptRatio - 1) / CACHE_PREFILL_SHARE_DIVISOR`) is 1.1, the
 * least TTFT growth told apart from a level's noise.
 */
export const MIN_PROMPT_RATIO = 1.4;

/**
 * Without a prompt cache, TTFT = a + b x prompt tokens (a: queueing, network, fixed work; b: prefill
 * per token), so the later turn's TTFT over the earlier's is 1 + (promptRatio - 1) x f, f being the
 * earlier turn's share of TTFT spent in prefill; with a prefix cache, both compared turns prefill
 * the same uncached part (the answer before and the new question), so the ratio stays near 1.
 * TTFT "grows with the history" when it rises by at least a quarter of the prompt's growth: a route
 * whose prefill is a quarter of its TTFT or more is seen without a cache.
 */
export const CACHE_PREFILL_SHARE_DIVISOR = 4;

/** The conversation as the workload configures it. */
export interface ConversationInput {
  turns: number;
  thinkSeconds: number;
}

/** Cached prompt tokens / prompt tokens over the samples that report both; null when none does. */
export function cachedShare(samples: Sample[]): number | null {
  let cached = 0;
  let prompt = 0;
  let reported = false;
  for (const s of samples) {
    if (s.cachedPromptTokens === null || s.promptTokens === null) continue;
    reported = true;
    cached += s.cachedPromptTokens;
    prompt += s.promptTokens;
  }
  return reported && prompt > 0 ? cached / prompt : null;
}

/** The figures of each turn, 1 .. `turns`, from a level's ok samples. */
function byTurn(ok: Sample[], turns: number): TurnFigures[] {
  return Array.from({ length: turns }, (_, i) => {
    const samples = ok.filter((s) => s.turn === i + 1);
    const ttft = distribution(samples.flatMap((s) => (s.ttftMs === null ? [] : [s.ttftMs])));
    return {
      turn: i + 1,
      n: samples.length,
      ttftMs: { p50: ttft.p50, p95: ttft.p95 },
      promptTokensP50: distribution(samples.flatMap((s) => (s.promptTokens === null ? [] : [s.promptTokens]))).p50,
      cachedPromptTokenShare: cachedShare(samples),
    };
  });
}

type Cache = ConversationTurns["cache"];

const percent = (x: number) => `${Math.round(x * 100)} %`;

/** The cache verdict of a level's turns (see `CACHE_PREFILL_SHARE_DIVISOR`, docs/methodology.md). */
export function cacheVerdict(turns: TurnFigures[], ok: Sample[]): Cache {
  const none = (verdict: CacheVerdict, detail: string): Cache => ({
    verdict,
    fromTurn: null,
    toTurn: null,
    ttftRatio: null,
    promptRatio: null,
    growthThreshold: null,
    detail,
  });
  // The samples' ratio is read off a robust line through them (`theilSen`), not off two p50s.
  const reported = turns.filter((t) => t.turn >= 2 && (t.cachedPromptTokenShare ?? 0) > 0);
  if (reported.length > 0) {
    const last = reported.at(-1) as TurnFigures;
    return {
      ...none(
        "reported",
        `the route reported cached prompt tokens: ${percent(last.cachedPromptTokenShare ?? 0)} of turn ${last.turn}'s prompt`,
      ),
    };
  }
  if (turns.length < 2) return none("undetermined", "conversations of one turn carry no history to tell a cache by");
  const counted = turns.filter((t) => t.n >= MIN_TURN_SAMPLES && t.ttftMs.p50 !== null && t.ttftMs.p50 > 0);
  const to = counted.at(-1);
  // Turn 2 on: both compared turns prefill the same uncached part under a cache (see above).
  const from =
    counted.find((t) => t.turn === 2 && to !== undefined && to.turn >= 3) ?? counted.find((t) => t.turn === 1);
  if (!to || !from || to.turn <= from.turn)
    return none(
      "undetermined",
      `too few samples: two turns need ${MIN_TURN_SAMPLES} ok samples each to be compared (${ok.length} ok in all)`,
    );
  if (to.promptTokensP50 === null || from.promptTokensP50 === null || from.promptTokensP50 <= 0)
    return {
      ...none("undetermined", "the route reported no prompt token counts to weigh the history's growth by"),
      fromTurn: from.turn,
      toTurn: to.turn,
    };
  const line = theilSen(
    ok.flatMap((s) =>
      s.turn !== null && s.turn >= from.turn && s.turn <= to.turn && s.ttftMs !== null && s.promptTokens !== null
        ? [[s.promptTokens, s.ttftMs] as const]
        : [],
    ),
  );
  const at = (promptTokens: number) => line.interceptMs + line.msPerToken * promptTokens;
  const promptRatio = to.promptTokensP50 / from.promptTokensP50;
  if (at(from.promptTokensP50) <= 0)
    return {
      ...none("undetermined", "the TTFT line over the turns does not stay above 0 ms: no ratio to judge"),
      fromTurn: from.turn,
      toTurn: to.turn,
      promptRatio,
    };
  const ttftRatio = at(to.promptTokensP50) / at(from.promptTokensP50);
  const base = { fromTurn: from.turn, toTurn: to.turn, ttftRatio, promptRatio };
  const compared = `the TTFT line through turns ${from.turn} to ${to.turn} puts turn ${to.turn} at ${ttftRatio.toFixed(2)} x turn ${from.turn}, over a prompt ${promptRatio.toFixed(2)} x as long`;
  if (promptRatio < MIN_PROMPT_RATIO)
    return {
      ...base,
      verdict: "undetermined",
      growthThreshold: null,
      detail: `no cached tokens reported, and the history grew the prompt too little to tell (${compared}; ${MIN_PROMPT_RATIO} x needed)`,
    };
  const growthThreshold = 1 + (promptRatio - 1) / CACHE_PREFILL_SHARE_DIVISOR;
  return ttftRatio >= growthThreshold
    ? {
        ...base,
        verdict: "no_cache_seen",
        growthThreshold,
        detail: `no prompt cache seen: no cached tokens reported, and TTFT grows with the history (${compared}; ${growthThreshold.toFixed(2)} x or more is growth)`,
      }
    : {
        ...base,
        verdict: "not_reported",
        growthThreshold,
        detail: `cache not reported: no cached tokens reported, but TTFT stays flat as the history grows (${compared}; under ${growthThreshold.toFixed(2)} x is flat)`,
      };
}

/** At most this many samples enter the TTFT line (evenly spaced in level order): its pairs grow as the square. */
const MAX_LINE_SAMPLES = 400;

/**
 * The Theil-Sen line through (prompt tokens, TTFT ms) points: the slope is the median of the slopes
 * of every pair with different prompt sizes, the intercept the median of TTFT less slope x prompt
 * tokens. Up to 29 % of the points may be anything (a request that queued behind a burst) without
 * moving it far, where two turns' p50s of a few samples each would follow them. A flat line without pairs.
 */
export function theilSen(points: readonly (readonly [number, number])[]): { msPerToken: number; interceptMs: number } {
  const step = Math.max(1, points.length / MAX_LINE_SAMPLES);
  const kept: (readonly [number, number])[] = [];
  for (let i = 0; i < points.length; i += step) kept.push(points[Math.floor(i)] as readonly [number, number]);
  const slopes: number[] = [];
  for (let i = 0; i < kept.length; i++)
    for (let j = i + 1; j < kept.length; j++) {
      const [x1, y1] = kept[i] as readonly [number, number];
      const [x2, y2] = kept[j] as readonly [number, number];
      if (x1 !== x2) slopes.push((y2 - y1) / (x2 - x1));
    }
  const msPerToken = distribution(slopes).p50 ?? 0;
  const interceptMs = distribution(kept.map(([x, y]) => y - msPerToken * x)).p50 ?? 0;
  return { msPerToken, interceptMs };
}

/** A conversation level's figures: by turn, the later turns' TTFT, the cache verdict. */
export function conversationFigures(ok: Sample[], conversation: ConversationInput): ConversationTurns {
  const turns = byTurn(ok, conversation.turns);
  const later = distribution(ok.flatMap((s) => ((s.turn ?? 1) >= 2 && s.ttftMs !== null ? [s.ttftMs] : [])));
  return {
    turns: conversation.turns,
    thinkSeconds: conversation.thinkSeconds,
    byTurn: turns,
    laterTurnsTtftMs: { p50: later.p50, p95: later.p95 },
    cache: cacheVerdict(turns, ok),
  };
}
