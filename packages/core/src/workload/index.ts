/** @module Deterministic prompts: about `promptTokens` tokens each, with a unique prefix so no prompt cache serves them. */

// Common English words, mostly one token each in the usual tokenizers.
const WORDS =
  "the river carries light across old stone while people walk slowly toward a quiet market where bread and fruit wait under wide canvas roofs".split(
    " ",
  );

/** Approximate characters per token, for sizing text (the real prompt size is taken from usage). */
export const CHARS_PER_TOKEN = 4;

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
}): string {
  const prefix = `${options.warmup ? "w" : ""}${options.index} at level ${options.level} of run ${options.runId}: request.`;
  const instruction = " Continue this story at length.";
  const targetChars = options.promptTokens * CHARS_PER_TOKEN - prefix.length - instruction.length;
  const parts: string[] = [prefix];
  let length = prefix.length;
  for (let i = options.index; length < targetChars; i++) {
    const word = WORDS[i % WORDS.length] as string;
    parts.push(word);
    length += word.length + 1;
  }
  return parts.join(" ") + instruction;
}
