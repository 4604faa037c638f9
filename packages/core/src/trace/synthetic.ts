/**
 * @module A synthetic Mooncake trace, generated here from a seed (no downloaded data): conversations
 * whose turns resend the conversation so far, so their `hash_ids` share leading blocks as a chat
 * service's prompts do, arriving in bursts. The example trace in examples/traces/ is its output.
 */
import { seededRandom } from "../random/index.ts";

export interface SyntheticTraceOptions {
  /** Requests in the trace. */
  requests: number;
  /** Seed: the same seed gives the same file. */
  seed: number;
  /** Conversations the requests belong to (each opens with one of `systemPrompts`). */
  conversations: number;
  /** Shared system prompts, each a few blocks that every conversation opening with it shares. */
  systemPrompts: number;
  /** Mean requests per second. */
  ratePerSecond: number;
  /** Prompt tokens per `hash_ids` entry. */
  blockSize: number;
}

export const DEFAULT_SYNTHETIC_TRACE: SyntheticTraceOptions = {
  requests: 200,
  seed: 37,
  conversations: 40,
  systemPrompts: 4,
  ratePerSecond: 2,
  blockSize: 512,
};

/**
 * The trace as Mooncake JSONL: each line `{ timestamp, input_length, output_length, hash_ids }`. A
 * conversation's first turn is its system prompt's blocks and a question's; each later turn is the
 * turn before (its blocks) and the answer and a new question, in new blocks. Gaps are the product of
 * two exponential draws over the rate (mean 1 / rate, coefficient of variation about 1.7: bursty), whole ms.
 */
export function syntheticMooncakeTrace(options: SyntheticTraceOptions = DEFAULT_SYNTHETIC_TRACE): string {
  const random = seededRandom(options.seed);
  const between = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
  let nextId = 0;
  const systems = Array.from({ length: options.systemPrompts }, () =>
    Array.from({ length: between(1, 4) }, () => nextId++),
  );
  // Each conversation's blocks so far and its prompt tokens so far.
  const conversations = Array.from({ length: options.conversations }, (_, i) => ({
    ids: [...(systems[i % systems.length] as number[])],
    tokens: 0,
  }));
  for (const c of conversations) c.tokens = c.ids.length * options.blockSize;
  const lines: string[] = [];
  let timestampMs = 0;
  for (let i = 0; i < options.requests; i++) {
    const c = conversations[between(0, conversations.length - 1)] as (typeof conversations)[number];
    // The answer to the turn before and the new question: a few hundred tokens, in blocks of their own.
    const added = between(100, 900);
    c.tokens += added;
    while (c.ids.length * options.blockSize < c.tokens) c.ids.push(nextId++);
    const output = between(20, 300);
    lines.push(
      JSON.stringify({ timestamp: timestampMs, input_length: c.tokens, output_length: output, hash_ids: [...c.ids] }),
    );
    const u = 1 - random();
    const v = 1 - random();
    timestampMs += Math.round(((-Math.log(u) * -Math.log(v)) / options.ratePerSecond) * 1000);
    // A conversation that grew past 16 blocks starts over from its system prompt.
    if (c.ids.length > 16) {
      const system = systems[between(0, systems.length - 1)] as number[];
      c.ids = [...system];
      c.tokens = system.length * options.blockSize;
    }
  }
  return `${lines.join("\n")}\n`;
}
