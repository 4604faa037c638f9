/**
 * @module The random draws of the reference models' answers: the words written above temperature 0,
 * and the source a tool answer's breakages are drawn from, seeded per (model, prompt, answer) when the
 * server is seeded.
 */
import { seededRandom } from "@kneeboard/core/random";
import { drawWords } from "@kneeboard/core/synthetic/words";
import { messageText } from "./answer.ts";
import type { StreamProfile } from "./stream-profile.ts";

/** FNV-1a of a text: the seed of one answer's words. */
function hashText(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/**
 * The draws of a server seeded with `seed`: the k-th answer of a model to a prompt draws from (seed,
 * model, prompt, k), so the answers to a prompt are the same set however requests interleave; unseeded,
 * `Math.random`.
 */
export function answerDraws(seed: number | undefined) {
  /** Answers drawn so far per (model, prompt), for the seeded draws. */
  const answers = new Map<string, number>();
  /** The random source of one answer: the k-th answer of a model to a prompt draws from (seed, model, prompt, k). */
  const answerRandom = (model: string, prompt: string): (() => number) => {
    if (seed === undefined) return Math.random;
    const key = `${model}\u0000${prompt}`;
    const k = answers.get(key) ?? 0;
    answers.set(key, k + 1);
    if (answers.size > 100_000) answers.clear();
    return seededRandom(hashText(`${seed}\u0000${key}\u0000${k}`));
  };
  /** The words of one answer above temperature 0 (null at temperature 0: " tok" tokens). */
  const wordsOf = (model: string, body: Record<string, unknown>, profile: StreamProfile, count: number) => {
    if (!(Number(body.temperature ?? 1) > 0)) return null;
    const prompt = messageText(body.messages);
    return drawWords(prompt, count, answerRandom(model, prompt), profile.distortion);
  };
  return { answerRandom, wordsOf };
}
