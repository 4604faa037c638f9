/** @module A fixed number of workers over a list: bounded concurrency for many small I/O calls. */

/**
 * `task` of every item, at most `limit` at once, results in the items' order. Rejects with the first
 * failure only after the calls in flight have settled, so none is still running when the caller
 * cleans up.
 */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) results[i] = await task(items[i] as T);
  };
  const settled = await Promise.allSettled(Array.from({ length: Math.min(limit, items.length) }, worker));
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) throw failed.reason;
  return results;
}
