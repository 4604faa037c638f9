/** @module A scripted endpoint in a manual scheduler's time, and a sweep set up against it: the sweep's tests without a server. */
import type { ChatRequest, RawResult } from "../client/index.ts";
import { parseConfig, workloadFor } from "../config/index.ts";
import { ManualScheduler } from "../scheduler/manual.ts";

/** Tokens of every ok answer. */
export const TOKENS = 8;

/** What the scripted endpoint does with its `arrival`-th request (0-based, in arrival order). */
export type Script = (arrival: number) => {
  outcome: RawResult["outcome"];
  durationMs: number;
  retryAfterSeconds?: number;
};

/** A result as the client would give it: `TOKENS` chunks evenly over the request for an ok one. */
function result(
  outcome: RawResult["outcome"],
  startMs: number,
  endMs: number,
  retryAfterSeconds?: number,
  keepAnswer?: boolean,
): RawResult {
  const ok = outcome === "ok";
  const stepMs = (endMs - startMs) / TOKENS;
  const contentChunks = ok
    ? Array.from({ length: TOKENS }, (_, i) => ({ tMs: startMs + stepMs * (i + 1), chars: 4 }))
    : [];
  return {
    outcome,
    startMs,
    contentChunks,
    firstAnswerMs: contentChunks[0]?.tMs ?? null,
    completionTokens: ok ? TOKENS : null,
    promptTokens: ok ? 20 : null,
    reasoningTokens: null,
    cachedPromptTokens: null,
    costUsd: null,
    finishReason: ok ? "length" : null,
    responseId: ok ? "scripted" : null,
    servedProvider: null,
    httpStatus: outcome === "rate_limited" ? 429 : outcome === "http_error" ? 500 : ok ? 200 : null,
    retryAfterSeconds: retryAfterSeconds ?? null,
    error: ok ? null : outcome,
    connection: "reused",
    sends: 1,
    staleSockets: 0,
    staleSocketMs: null,
    connectMs: null,
    tlsMs: null,
    ...(keepAnswer ? { answerText: ok ? " tok".repeat(TOKENS) : "" } : {}),
  };
}

/** An endpoint in scheduler time: each request lasts as the script says; an aborted one ends at once as `network`. */
export function scriptedEndpoint(scheduler: ManualScheduler, script: Script) {
  const arrivals: { prompt: string; atMs: number; request: ChatRequest }[] = [];
  let inFlight = 0;
  const inFlightLog: [number, number][] = [];
  return {
    arrivals,
    inFlightLog,
    async send(request: ChatRequest): Promise<RawResult> {
      const startMs = scheduler.now();
      const step = script(arrivals.length);
      arrivals.push({ prompt: request.prompt, atMs: startMs, request });
      inFlightLog.push([startMs, ++inFlight]);
      await scheduler.sleep(step.durationMs, request.signal);
      inFlightLog.push([scheduler.now(), --inFlight]);
      if (request.signal?.aborted) return result("network", startMs, scheduler.now(), undefined, request.keepAnswer);
      return result(step.outcome, startMs, scheduler.now(), step.retryAfterSeconds, request.keepAnswer);
    },
  };
}

export function setup(workload: Record<string, unknown>, script: Script) {
  const config = parseConfig(
    JSON.stringify({
      targets: [
        {
          id: "scripted",
          label: "scripted",
          baseURL: "http://127.0.0.1:9/v1",
          model: "m",
          route: { gateway: "direct" },
        },
      ],
      workload: { maxTokens: TOKENS, ...workload },
    }),
  );
  const target = config.targets[0] as (typeof config.targets)[number];
  const scheduler = new ManualScheduler();
  const endpoint = scriptedEndpoint(scheduler, script);
  // The manual scheduler's loop spins by design: the client's health is that of a calm process.
  const watchHealth = () => ({
    firstTokenRead: () => {},
    stop: () => ({
      eventLoopLagP99Ms: 0,
      eventLoopLagMeanMs: 0,
      loopUtilization: 0,
      cpuShare: 0,
      firstTokenReadDelayMs: 0,
    }),
  });
  return {
    scheduler,
    endpoint,
    options: { target, workload: workloadFor(config, target), scheduler, client: endpoint, watchHealth },
  };
}
