/** @module The rate limiter port (the subscribe endpoint's limits). Adapters: `memory.ts`, and DynamoDB in `aws/`. */

/**
 * Counts requests per key in a fixed window (the subscribe endpoint's limit per address).
 * `take` returns true when the request is allowed, false when the key used up `limit` in the window.
 */
export interface RateLimiter {
  take(key: string, limit: number, windowMs: number, nowMs: number): Promise<boolean>;
}
