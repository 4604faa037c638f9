/**
 * @module The tool-call phase of a run, after its levels and the canary: every prompt of the suite
 * asked `samplesPerPrompt` times at temperature 0, at most `concurrency` in flight, each answer
 * scored; the run document's `toolCalls` (docs/run-document.md#tool-calls). A failed request counts
 * as a failure on every measure of its prompt. A route whose first `REFUSAL_REQUESTS` requests with
 * tools are all refused is `no-tool-support` and the phase ends there (the sweep goes on); a refusal
 * after an answered request with tools is one more failed request.
 */
import type { ChatRequest, RawResult } from "../client/index.ts";
import type { ToolCallSettings, Workload } from "../config/index.ts";
import { runPhase } from "../drive/phase.ts";
import type { ToolCallAnswer, ToolCalls } from "../run/index.ts";
import { scoreAnswer, sharesOf } from "./measures.ts";
import { TOOL_SUITE, type ToolPrompt, type ToolSuite } from "./suite.ts";

/** Requests with tools, the first sent, that must all be refused for the route to be `no-tool-support`: one 400 is a failure, a pattern is a refusal. */
export const REFUSAL_REQUESTS = 3;

/** The statuses by which a route refuses a request it cannot take (the body names tools or not). */
const REFUSED_STATUSES = new Set([400, 422]);

/** Error words that say the route does not take tools, whatever the status or the event that carried them. */
const NO_TOOLS =
  /\b(tools?|tool[_ ]calls?|tool[_ ]choice|functions?|function[_ ]calling)\b[^.]*?\b(not supported|unsupported|not enabled|not available|does not support)|\b(does not support|doesn't support|no support for)\b[^.]*?\b(tools?|tool[_ ]calls?|function[_ ]calling|functions?)\b/i;

/** What sends one request: the streaming client, or a test's stand-in. */
export interface ToolCallSender {
  send(request: ChatRequest): Promise<RawResult>;
}

export interface ToolCallOptions {
  client: ToolCallSender;
  settings: ToolCallSettings;
  /** Timeouts come from the run's workload. */
  workload: Pick<Workload, "requestTimeoutSeconds" | "streamIdleTimeoutSeconds">;
  /** The sweep's stop, checked before each send; its reason ends the phase. */
  stopReason: () => string | null;
  signal?: AbortSignal;
  /** Default `TOOL_SUITE`. */
  suite?: ToolSuite;
}

/**
 * Why a request with tools says the route does not take them, in words (`HTTP 400: ...`); null when
 * it does not say so. Only a request that offered tools can be refused for them.
 */
export function refusedTools(prompt: ToolPrompt, result: RawResult): string | null {
  if (prompt.tools.length === 0 || result.outcome === "ok" || result.error === null) return null;
  const refusedStatus = result.outcome === "http_error" && REFUSED_STATUSES.has(result.httpStatus ?? 0);
  return refusedStatus || NO_TOOLS.test(result.error) ? result.error : null;
}

/** The chat request of one prompt: its system and user messages, its tools or its response schema. */
export function toolCallRequest(
  prompt: ToolPrompt,
  settings: ToolCallSettings,
  workload: ToolCallOptions["workload"],
  signal?: AbortSignal,
): ChatRequest {
  const system = prompt.messages.filter((m) => m.role === "system").map((m) => m.content);
  const user = prompt.messages.filter((m) => m.role === "user").map((m) => m.content);
  return {
    ...(system.length > 0 ? { system: system.join("\n\n") } : {}),
    prompt: user.join("\n\n"),
    maxTokens: settings.maxTokens,
    temperature: settings.temperature,
    timeoutMs: workload.requestTimeoutSeconds * 1000,
    idleTimeoutMs: workload.streamIdleTimeoutSeconds * 1000,
    signal,
    tools: prompt.tools,
    ...(prompt.responseSchema ? { responseSchema: prompt.responseSchema } : {}),
  };
}

/** One answer as the run document records it. */
function answerOf(prompt: ToolPrompt, sample: number, result: RawResult): ToolCallAnswer {
  return {
    promptId: prompt.id,
    sample,
    outcome: result.outcome,
    httpStatus: result.httpStatus,
    finishReason: result.finishReason,
    calls: (result.toolCalls ?? []).map((c) => ({ index: c.index, id: c.id, name: c.name, arguments: c.arguments })),
    argumentsAsObject: result.argumentsAsObject === true,
    content: result.answerText ? result.answerText : null,
  };
}

/**
 * Runs the tool-call phase and returns the run document's `toolCalls`. Requests go out round by
 * round (every prompt once, then every prompt again), so a phase cut short keeps its prompts even.
 */
export async function runToolCalls(options: ToolCallOptions): Promise<ToolCalls> {
  const { settings } = options;
  const suite = options.suite ?? TOOL_SUITE;
  const asks = Array.from({ length: settings.samplesPerPrompt }, (_, sample) =>
    suite.prompts.map((prompt) => ({ prompt, sample })),
  ).flat();
  // The first REFUSAL_REQUESTS requests with tools, in send order: each one's refusal, once back.
  const firstWithTools: (string | null | undefined)[] = [];
  let refused: string | null = null;
  const { answers: sent, stopped } = await runPhase({
    asks,
    concurrency: settings.concurrency,
    stopReason: options.stopReason,
    send: async ({ prompt, sample }) => {
      const slot = prompt.tools.length > 0 && firstWithTools.length < REFUSAL_REQUESTS ? firstWithTools.length : -1;
      if (slot >= 0) firstWithTools.push(undefined);
      const result = await options.client.send(toolCallRequest(prompt, settings, options.workload, options.signal));
      if (slot >= 0) firstWithTools[slot] = refusedTools(prompt, result);
      const consistent =
        firstWithTools.length === REFUSAL_REQUESTS && firstWithTools.every((r) => typeof r === "string");
      if (consistent) refused ??= firstWithTools[0] as string;
      return {
        answer: answerOf(prompt, sample, result),
        ok: result.outcome === "ok",
        stop: consistent ? "the route refused tools" : null,
      };
    },
  });
  const promptOf = new Map(suite.prompts.map((p) => [p.id, p]));
  // A route that refused tools is measured on nothing: its answers stand as data, its shares count none.
  const scores = refused === null ? sent.map((a) => scoreAnswer(promptOf.get(a.promptId) as ToolPrompt, a)) : [];
  return {
    suite: suite.id,
    samplesPerPrompt: settings.samplesPerPrompt,
    concurrency: settings.concurrency,
    temperature: settings.temperature,
    maxTokens: settings.maxTokens,
    support: refused === null ? "supported" : "no-tool-support",
    supportDetail: refused,
    requests: sent.length,
    failed: sent.filter((a) => a.outcome !== "ok").length,
    shares: sharesOf(scores),
    answers: sent,
    stopped,
  };
}
