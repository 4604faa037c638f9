/** @module Deterministic prompts: about `promptTokens` tokens each, with a unique prefix so no prompt cache serves them. */

import { distribution } from "../metrics/distribution.ts";

// Common English words, mostly one token each in the usual tokenizers.
const WORDS =
  "the river carries light across old stone while people walk slowly toward a quiet market where bread and fruit wait under wide canvas roofs".split(
    " ",
  );

/** Characters per token a prompt is first sized with; a sweep then learns the endpoint's own (`PromptSizer`). */
export const CHARS_PER_TOKEN = 4;

/**
 * Learns how many characters of these prompts the endpoint counts as one token (its tokenizer and
 * chat template), from the `usage.prompt_tokens` of the requests it answered, so later prompts come
 * within a few percent of `promptTokens` as the endpoint counts them: the median of every ratio seen.
 */
export class PromptSizer {
  private readonly ratios: number[] = [];

  /** Characters per prompt token to size the next prompt with. */
  get charsPerToken(): number {
    return distribution(this.ratios).p50 ?? CHARS_PER_TOKEN;
  }

  /** A prompt of `chars` characters was counted as `promptTokens` tokens (null: the endpoint did not say). */
  observe(chars: number, promptTokens: number | null): void {
    if (promptTokens !== null && promptTokens > 0 && this.ratios.length < 1000) this.ratios.push(chars / promptTokens);
  }
}

/**
 * The prompt of one request: a unique prefix, then filler words, about `promptTokens` tokens in all,
 * ending with an instruction that asks for a long answer. The prefix puts what differs most between
 * requests first (request index, then level, then run id), so two requests share no leading tokens
 * past the chat template and no prefix cache can serve any of the prompt; a warm-up request's index
 * carries a `w`.
 */
export function promptFor(options: {
  runId: string;
  level: number;
  index: number;
  promptTokens: number;
  warmup?: boolean;
  /** Characters per token to size it with (default `CHARS_PER_TOKEN`; see `PromptSizer`). */
  charsPerToken?: number;
}): string {
  const prefix = `${options.warmup ? "w" : ""}${options.index} at level ${options.level} of run ${options.runId}: request.`;
  const instruction = " Continue this story at length.";
  const targetChars = options.promptTokens * (options.charsPerToken ?? CHARS_PER_TOKEN) - instruction.length;
  const parts: string[] = [prefix];
  let length = prefix.length;
  for (let i = options.index; length < targetChars; i++) {
    const word = WORDS[i % WORDS.length] as string;
    parts.push(word);
    length += word.length + 1;
  }
  return parts.join(" ") + instruction;
}

/** Deterministic words after `prefix`, about `tokens` tokens in all with `suffix`, the words starting at `offset`. */
function filled(prefix: string, suffix: string, tokens: number, offset: number, charsPerToken: number): string {
  const targetChars = tokens * charsPerToken - suffix.length;
  const parts: string[] = [prefix];
  let length = prefix.length;
  for (let i = offset; length < targetChars; i++) {
    const word = WORDS[i % WORDS.length] as string;
    parts.push(word);
    length += word.length + 1;
  }
  return parts.join(" ") + suffix;
}

/**
 * The system prompt of a run's conversations: about `tokens` tokens, the same for every conversation
 * of the run (as an app's system prompt is), so a prefix cache may serve it from the second
 * conversation on; it names the run, so one run's cache never serves the next. Empty when `tokens` is 0.
 * Its words do not depend on the size, so two sizes of it (levels sized apart) share their leading text.
 */
export function systemPromptFor(options: { runId: string; tokens: number; charsPerToken?: number }): string {
  if (options.tokens <= 0) return "";
  return filled(
    `You are the assistant of run ${options.runId}. Keep this background in mind:`,
    " Answer every question at length.",
    options.tokens,
    0,
    options.charsPerToken ?? CHARS_PER_TOKEN,
  );
}

/**
 * The new question of one turn of a conversation, about `promptTokens` tokens: like `promptFor`'s
 * prompt, it begins with what is unique to it (the conversation, numbered by the index of its first
 * turn's request, then the turn, level and run id), so no two conversations share a question; a
 * warm-up conversation's number carries a `w`.
 */
export function questionFor(options: {
  runId: string;
  level: number;
  conversation: number;
  turn: number;
  promptTokens: number;
  warmup?: boolean;
  charsPerToken?: number;
}): string {
  return filled(
    `${options.warmup ? "w" : ""}${options.conversation} turn ${options.turn} at level ${options.level} of run ${options.runId}: question.`,
    " Continue the story at length.",
    options.promptTokens,
    options.conversation + options.turn,
    options.charsPerToken ?? CHARS_PER_TOKEN,
  );
}
