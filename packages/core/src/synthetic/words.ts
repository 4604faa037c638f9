/**
 * @module A known word distribution: what the reference server's simulated models write at a
 * temperature above 0, and what the same-model test's own tests draw from. At each position of an
 * answer to a prompt the next word is drawn from a Zipf law over `WORDS`, in an order fixed by the
 * prompt and the position; a distorted copy moves each drawn word's rank one place with a given
 * probability, as a quantized or otherwise changed model shifts its next-token probabilities.
 */
import { seededRandom } from "../random/index.ts";

/** The vocabulary: every word the simulated models write. */
export const WORDS = [
  "the",
  "sea",
  "light",
  "river",
  "stone",
  "cloud",
  "wind",
  "tree",
  "bird",
  "song",
  "night",
  "morning",
  "fire",
  "road",
  "home",
  "rain",
] as const;

/**
 * The Zipf exponent of the ranks: the word at rank r (from 1) is drawn with probability proportional
 * to 1 / r^1.5 (0.43 for the first of 16 words, 0.15 for the second): peaked, as a language model's
 * next-token distribution mostly is.
 */
export const ZIPF_EXPONENT = 1.5;

/** Cumulative probabilities of the ranks 0 .. WORDS.length - 1. */
const CUMULATIVE: number[] = (() => {
  const weights = WORDS.map((_, r) => 1 / (r + 1) ** ZIPF_EXPONENT);
  const total = weights.reduce((a, b) => a + b, 0);
  let sum = 0;
  return weights.map((w) => {
    sum += w / total;
    return sum;
  });
})();

/** How a distorted copy changes the distribution. */
export interface WordDistortion {
  /** Each drawn word's rank moves one place (up or down, evenly; from the ends inward) with this probability, 0..1. */
  rankShiftProbability: number;
}

/** FNV-1a over the text: a stable 32-bit seed. */
function hashText(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

const orders = new Map<string, string[][]>();

/**
 * The words in rank order (most likely first) at each position 0 .. positions - 1 of an answer to
 * `prompt`: a permutation of `WORDS` fixed by the prompt and the position.
 */
export function rankedWords(prompt: string, positions: number): string[][] {
  const known = orders.get(prompt) ?? [];
  for (let p = known.length; p < positions; p++) {
    const random = seededRandom(hashText(prompt) ^ Math.imul(p + 1, 0x9e3779b1));
    const order: string[] = [...WORDS];
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j] as string, order[i] as string];
    }
    known.push(order);
  }
  // A bound for long-running servers: the canary asks about 10 prompts, a sweep's prompts are unique.
  if (orders.size > 1000) orders.clear();
  orders.set(prompt, known);
  return known;
}

/** A rank (0-based) drawn from the Zipf law. */
function drawRank(random: () => number): number {
  const u = random();
  const r = CUMULATIVE.findIndex((c) => u < c);
  return r < 0 ? WORDS.length - 1 : r;
}

/** The rank one place away: up or down evenly, from the first and last ranks inward. */
function shiftRank(rank: number, random: () => number): number {
  if (rank === 0) return 1;
  if (rank === WORDS.length - 1) return rank - 1;
  return random() < 0.5 ? rank - 1 : rank + 1;
}

/**
 * `count` words of an answer to `prompt`, drawn with `random` (a generator in [0, 1)): the faithful
 * distribution, or with `distortion` the distorted one.
 */
export function drawWords(prompt: string, count: number, random: () => number, distortion?: WordDistortion): string[] {
  const ranked = rankedWords(prompt, count);
  const words: string[] = [];
  for (let p = 0; p < count; p++) {
    let rank = drawRank(random);
    if (distortion && random() < distortion.rankShiftProbability) rank = shiftRank(rank, random);
    words.push((ranked[p] as string[])[rank] as string);
  }
  return words;
}
