/** @module The figures of one request (docs/methodology.md, per request), derived from its content chunks; pure. */

/** One content chunk of a stream: when it arrived and how many content (or reasoning) characters it held. */
export interface ContentChunk {
  /** Arrival time, ms, on the same clock as `startMs`. */
  tMs: number;
  /** Content plus reasoning characters in the chunk. */
  chars: number;
}

/** What `deriveSampleFigures` reads: a request's start, its content chunks in arrival order, its token count. */
export interface SampleTimings {
  /** Request start, ms. */
  startMs: number;
  /** Non-empty content chunks in arrival order; role-only, empty, usage and `[DONE]` chunks excluded. */
  contentChunks: ContentChunk[];
  /** Output tokens (usage or chunk count); null when unknown. */
  completionTokens: number | null;
  /** Arrival of the first answer chunk (not reasoning), ms, same clock; null or absent when none came. */
  firstAnswerMs?: number | null;
}

/** The per-request figures of docs/methodology.md, flat, units in the names; null where undefined. */
export interface SampleFigures {
  /** First content chunk minus start, ms; null without chunks. */
  ttftMs: number | null;
  /** First answer chunk (not reasoning) minus start, ms; null when no answer came. */
  ttftAnswerMs: number | null;
  /** Last content chunk minus start, ms; null without chunks. */
  e2eMs: number | null;
  /** completionTokens / (e2eMs / 1000), tok/s; null without tokens or when e2eMs is 0. */
  outputTokensPerSecond: number | null;
  /** Tokens after the first chunk / seconds after the first chunk, tok/s; null with fewer than 2 chunks spread in time. */
  decodeTokensPerSecond: number | null;
  /** (e2eMs - ttftMs) / (completionTokens - 1), ms; null with under 2 tokens or no time after the first chunk. */
  tpotMs: number | null;
  /** Gaps between consecutive content chunks, ms; empty with fewer than 2 chunks. */
  interChunkMs: number[];
}

/**
 * Derives a sample's timing figures from its content chunks (docs/methodology.md, per request).
 * The decode rate cannot see token boundaries, so the first chunk's tokens are estimated by its share
 * of the content characters (`tokens * charsFirst / totalChars`; by its share of chunks when no chunk
 * has characters). `tpotMs` is null, not 0, when all content came in one chunk: nothing was measured after it.
 */
export function deriveSampleFigures(input: SampleTimings): SampleFigures {
  const { startMs, contentChunks: chunks, completionTokens: tokens } = input;
  const first = chunks[0];
  const last = chunks[chunks.length - 1];
  const ttftAnswerMs = input.firstAnswerMs == null ? null : input.firstAnswerMs - startMs;
  if (first === undefined || last === undefined) {
    return {
      ttftMs: null,
      ttftAnswerMs,
      e2eMs: null,
      outputTokensPerSecond: null,
      decodeTokensPerSecond: null,
      tpotMs: null,
      interChunkMs: [],
    };
  }
  const ttftMs = first.tMs - startMs;
  const e2eMs = last.tMs - startMs;
  const decodeMs = last.tMs - first.tMs;
  const interChunkMs: number[] = [];
  for (let i = 1; i < chunks.length; i++)
    interChunkMs.push((chunks[i] as ContentChunk).tMs - (chunks[i - 1] as ContentChunk).tMs);

  const outputTokensPerSecond = tokens !== null && e2eMs > 0 ? tokens / (e2eMs / 1000) : null;

  let decodeTokensPerSecond: number | null = null;
  if (tokens !== null && decodeMs > 0) {
    let totalChars = 0;
    for (const c of chunks) totalChars += c.chars;
    const firstShare = totalChars > 0 ? first.chars / totalChars : 1 / chunks.length;
    decodeTokensPerSecond = (tokens - tokens * firstShare) / (decodeMs / 1000);
  }

  const tpotMs = tokens !== null && tokens > 1 && decodeMs > 0 ? (e2eMs - ttftMs) / (tokens - 1) : null;

  return {
    ttftMs,
    ttftAnswerMs,
    e2eMs,
    outputTokensPerSecond,
    decodeTokensPerSecond,
    tpotMs,
    interChunkMs,
  };
}
