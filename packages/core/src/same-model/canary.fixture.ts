/** @module Canary sections drawn from the known word distribution (synthetic/words), for the same-model tests. */
import { seededRandom } from "../random/index.ts";
import type { Canary } from "../run/index.ts";
import { drawWords, type WordDistortion } from "../synthetic/words.ts";
import { CANARY_PROMPTS } from "./prompts.ts";

export interface DrawnCanaryOptions {
  seed: number;
  samplesPerPrompt?: number;
  maxTokens?: number;
  distortion?: WordDistortion;
  /** Reported prompt tokens are the prompt's characters / 4, times this (default 1). */
  promptTokensScale?: number;
}

/** A canary section whose completions are drawn, seeded, from the word distribution (or a distorted one). */
export function drawnCanary(options: DrawnCanaryOptions): Canary {
  const random = seededRandom(options.seed);
  const samplesPerPrompt = options.samplesPerPrompt ?? 10;
  const maxTokens = options.maxTokens ?? 32;
  const prompts = CANARY_PROMPTS.prompts.map((p) => ({ id: p.id, text: p.text }));
  const completions: Canary["completions"] = [];
  for (let index = 0; index < samplesPerPrompt; index++)
    for (const p of prompts)
      completions.push({
        promptId: p.id,
        index,
        outcome: "ok",
        text: drawWords(p.text, maxTokens, random, options.distortion)
          .map((w) => ` ${w}`)
          .join(""),
        promptTokens: Math.round((Math.ceil(p.text.length / 4) + 8) * (options.promptTokensScale ?? 1)),
        completionTokens: maxTokens,
        finishReason: "length",
        error: null,
      });
  return {
    promptSet: CANARY_PROMPTS.name,
    temperature: 1,
    maxTokens,
    samplesPerPrompt,
    concurrency: 4,
    prompts,
    completions,
    durationMs: 0,
    stopped: null,
  };
}
