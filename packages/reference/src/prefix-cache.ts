/**
 * @module A simulated prefix cache, as vLLM's automatic prefix caching and SGLang's radix cache keep
 * one: a prompt is cut into blocks of tokens, each block known by its text and everything before it
 * (a hash chain), so a block hits only when the whole prompt up to its end was prefilled before.
 */
import { createHash } from "node:crypto";

export interface PrefixCacheOptions {
  /** Tokens per block (default 16, vLLM's): only whole blocks are cached. */
  blockTokens?: number;
  /** Blocks kept at most (default 65,536); the least recently used go first. */
  capacityBlocks?: number;
}

export class PrefixCache {
  private readonly blockTokens: number;
  private readonly capacity: number;
  /** Block keys, least recently used first (a Map keeps insertion order). */
  private readonly blocks = new Map<string, true>();

  constructor(
    options: PrefixCacheOptions = {},
    /** Characters of prompt text per token, as the model counts them. */
    private readonly charsPerToken = 4,
  ) {
    this.blockTokens = Math.max(1, options.blockTokens ?? 16);
    this.capacity = Math.max(1, options.capacityBlocks ?? 65_536);
  }

  /** The chain keys of the prompt's whole blocks, in order. */
  private keys(text: string): string[] {
    const chars = this.blockTokens * this.charsPerToken;
    const keys: string[] = [];
    let previous = "";
    for (let end = chars; end <= text.length; end += chars) {
      previous = createHash("sha1")
        .update(previous)
        .update(text.slice(end - chars, end))
        .digest("base64");
      keys.push(previous);
    }
    return keys;
  }

  /**
   * Tokens of the prompt's leading blocks already cached, marked used: their share of the text (which
   * holds the roles too) of the `promptTokens` the model counts, rounded down.
   */
  lookup(text: string, promptTokens: number): number {
    let hit = 0;
    for (const key of this.keys(text)) {
      if (!this.blocks.has(key)) break;
      this.blocks.delete(key);
      this.blocks.set(key, true);
      hit++;
    }
    const hitChars = hit * this.blockTokens * this.charsPerToken;
    return text.length > 0 ? Math.min(promptTokens, Math.floor((hitChars / text.length) * promptTokens)) : 0;
  }

  /** The prompt was prefilled: its whole blocks are cached from now on. */
  insert(text: string): void {
    for (const key of this.keys(text)) {
      this.blocks.delete(key);
      this.blocks.set(key, true);
    }
    for (const key of this.blocks.keys()) {
      if (this.blocks.size <= this.capacity) break;
      this.blocks.delete(key);
    }
  }
}
