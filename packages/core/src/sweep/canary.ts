/**
 * @module The canary phase of a run, after its levels: the fixed canary prompts, each sampled
 * `samplesPerPrompt` times at temperature 1 for `maxTokens`, at most `concurrency` in flight; the
 * completions and the prompt token counts the route reports go into the run document's `canary`
 * (docs/run-document.md#the-canary). A failed request is data; the phase stops early when its first
 * requests all fail, or when the sweep stops.
 */
import type { CanarySettings, Workload } from "../config/index.ts";
import type { Canary, CanaryCompletion } from "../run/index.ts";
import { CANARY_PROMPTS, type CanaryPromptSet } from "../same-model/prompts.ts";
import type { Scheduler } from "../scheduler/index.ts";
import type { RequestSender } from "./request.ts";

/** As a level's: when the phase's first this many requests all fail, it sends no more. */
const CANARY_EARLY_STOP_REQUESTS = 4;

export interface CanaryOptions {
  client: RequestSender;
  settings: CanarySettings;
  /** Timeouts come from the run's workload. */
  workload: Pick<Workload, "requestTimeoutSeconds" | "streamIdleTimeoutSeconds">;
  scheduler: Scheduler;
  /** The sweep's stop, checked before each send; its reason ends the phase. */
  stopReason: () => string | null;
  signal?: AbortSignal;
  /** Default `CANARY_PROMPTS`. */
  prompts?: CanaryPromptSet;
}

/**
 * Runs the canary phase and returns the run document's `canary` section. Requests go out round by
 * round (every prompt once, then every prompt again), so a phase cut short keeps its prompts even.
 */
export async function runCanary(options: CanaryOptions): Promise<Canary> {
  const { settings, workload, scheduler } = options;
  const set = options.prompts ?? CANARY_PROMPTS;
  const asks = Array.from({ length: settings.samplesPerPrompt }, (_, index) =>
    set.prompts.map((prompt) => ({ prompt, index })),
  ).flat();
  const completions: (CanaryCompletion | undefined)[] = new Array(asks.length);
  let next = 0;
  let stopped: string | null = null;
  let failedFirst = 0;
  let answered = 0;
  const startMs = scheduler.now();
  const worker = async () => {
    while (stopped === null && next < asks.length) {
      const reason = options.stopReason();
      if (reason !== null) {
        stopped = reason;
        return;
      }
      const at = next++;
      const { prompt, index } = asks[at] as (typeof asks)[number];
      const result = await options.client.send({
        prompt: prompt.text,
        maxTokens: settings.maxTokens,
        temperature: settings.temperature,
        timeoutMs: workload.requestTimeoutSeconds * 1000,
        idleTimeoutMs: workload.streamIdleTimeoutSeconds * 1000,
        signal: options.signal,
        keepText: true,
      });
      completions[at] = {
        promptId: prompt.id,
        index,
        outcome: result.outcome,
        text: result.text ?? "",
        promptTokens: result.promptTokens,
        completionTokens: result.completionTokens,
        finishReason: result.finishReason,
        error: result.error,
      };
      if (at < CANARY_EARLY_STOP_REQUESTS) {
        answered += result.outcome === "ok" ? 1 : 0;
        failedFirst += result.outcome === "ok" ? 0 : 1;
        if (failedFirst === Math.min(CANARY_EARLY_STOP_REQUESTS, asks.length) && answered === 0)
          stopped ??= `its first ${failedFirst} requests all failed`;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(settings.concurrency, asks.length)) }, worker));
  return {
    promptSet: set.name,
    temperature: settings.temperature,
    maxTokens: settings.maxTokens,
    samplesPerPrompt: settings.samplesPerPrompt,
    concurrency: settings.concurrency,
    prompts: set.prompts.map((p) => ({ id: p.id, text: p.text })),
    completions: completions.filter((c): c is CanaryCompletion => c !== undefined),
    durationMs: Math.max(0, scheduler.now() - startMs),
    stopped,
  };
}
