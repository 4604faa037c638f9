/**
 * @module The canary phase of a run, after its levels: the fixed canary prompts, each sampled
 * `samplesPerPrompt` times at temperature 1 for `maxTokens`, at most `concurrency` in flight; the
 * completions and the prompt token counts the route reports go into the run document's `canary`
 * (docs/run-document.md#the-canary). A failed request is data; the phase stops early when its first
 * requests all fail, or when the sweep stops.
 */
import type { CanarySettings, Workload } from "../config/index.ts";
import { type PhaseReply, runPhase } from "../drive/phase.ts";
import type { Canary, CanaryCompletion } from "../run/index.ts";
import { CANARY_PROMPTS, type CanaryPromptSet } from "../same-model/prompts.ts";
import type { Scheduler } from "../scheduler/index.ts";
import type { RequestSender } from "./request.ts";

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
  const startMs = scheduler.now();
  const { answers: completions, stopped } = await runPhase({
    asks,
    concurrency: settings.concurrency,
    stopReason: options.stopReason,
    send: async ({ prompt, index }): Promise<PhaseReply<CanaryCompletion>> => {
      const result = await options.client.send({
        prompt: prompt.text,
        maxTokens: settings.maxTokens,
        temperature: settings.temperature,
        timeoutMs: workload.requestTimeoutSeconds * 1000,
        idleTimeoutMs: workload.streamIdleTimeoutSeconds * 1000,
        signal: options.signal,
        keepText: true,
      });
      const answer = {
        promptId: prompt.id,
        index,
        outcome: result.outcome,
        text: result.text ?? "",
        promptTokens: result.promptTokens,
        completionTokens: result.completionTokens,
        finishReason: result.finishReason,
        error: result.error,
      };
      return { answer, ok: result.outcome === "ok" };
    },
  });
  return {
    promptSet: set.name,
    temperature: settings.temperature,
    maxTokens: settings.maxTokens,
    samplesPerPrompt: settings.samplesPerPrompt,
    concurrency: settings.concurrency,
    prompts: set.prompts.map((p) => ({ id: p.id, text: p.text })),
    completions,
    durationMs: Math.max(0, scheduler.now() - startMs),
    stopped,
  };
}
