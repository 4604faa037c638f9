/** @module Deterministic prompts: about `promptTokens` tokens each, with a unique prefix so no prompt cache serves them. */

// Common English words, mostly one token each in the usual tokenizers.
const WORDS =
  "the river carries light across old stone while people walk slowly toward a quiet market where bread and fruit wait under wide canvas roofs".split(
    " ",
  );

/** Approximate characters per token, for sizing text (the real prompt size is taken from usage). */
export const CHARS_PER_TOKEN = 4;

/**
 * The prompt of one request: a unique prefix (run id, level, request index) and filler words,
 * about `promptTokens` tokens in all, ending with an instruction that asks for a long answer.
 */
export function promptFor(options: {
  runId: string;
  level: number;
  index: number;
  promptTokens: number;
  warmup?: boolean;
}): string {
  const prefix = `Request ${options.runId}-${options.level}-${options.warmup ? "w" : ""}${options.index}.`;
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
