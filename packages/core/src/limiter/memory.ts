/** @module The rate limiter in memory. */
import type { RateLimiter } from "./index.ts";

/**
 * Fixed windows per key, in memory: right for one process (a local server, one Lambda instance);
 * across Lambda instances a shared limiter (DynamoDB) is needed.
 */
export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, { startMs: number; windowMs: number; count: number }>();

  /** Windows are swept once the map holds this many keys, so memory stays bounded. */
  constructor(private readonly maxKeys = 10_000) {}

  /** Keys with a window in memory. */
  get size(): number {
    return this.windows.size;
  }

  async take(key: string, limit: number, windowMs: number, nowMs: number): Promise<boolean> {
    if (this.windows.size >= this.maxKeys) this.sweep(nowMs);
    let window = this.windows.get(key);
    if (!window || nowMs - window.startMs >= window.windowMs) {
      window = { startMs: nowMs, windowMs, count: 0 };
      this.windows.set(key, window);
    }
    if (window.count >= limit) return false;
    window.count++;
    return true;
  }

  private sweep(nowMs: number): void {
    for (const [key, w] of this.windows) if (nowMs - w.startMs >= w.windowMs) this.windows.delete(key);
    // Still full of live windows: drop the oldest (Map keeps insertion order) rather than grow.
    for (const key of this.windows.keys()) {
      if (this.windows.size < this.maxKeys) break;
      this.windows.delete(key);
    }
  }
}
