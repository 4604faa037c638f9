/** @module Route pinning: the body fields and headers that pin a gateway to one provider (no fallback), and who served. */
import type { IncomingMessage } from "node:http";
import type { Route } from "../route/index.ts";

/** Reads one response header (lowercase name) as a string, or null. */
export type HeaderReader = (name: string) => string | null;

export function headerReader(res: IncomingMessage): HeaderReader {
  return (name) => {
    const value = res.headers[name];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(", ") : value;
  };
}

/** Reads a dotted path (`a.b.c`) out of a JSON value. */
function fieldAt(value: unknown, path: string): unknown {
  let current = value;
  for (const part of path.split(".")) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

const sameName = (a: string | null | undefined, b: string | null | undefined) =>
  a != null && b != null && a.toLowerCase() === b.toLowerCase();

/** The body fields and headers that pin the route. */
export function pinning(route: Route): { body: Record<string, unknown>; headers: Record<string, string> } {
  switch (route.gateway) {
    case "openrouter":
      return { body: { provider: { order: [route.provider], allow_fallbacks: false } }, headers: {} };
    case "litellm":
      return { body: { disable_fallbacks: true }, headers: { "x-litellm-num-retries": "0" } };
    case "custom":
      return { body: route.body ?? {}, headers: route.headers ?? {} };
    default:
      return { body: {}, headers: {} };
  }
}

/** The first chunk that named anything, as far as verification reads it: any JSON value, for a custom route's `bodyField`. */
export interface NamingChunk {
  provider?: string;
  model?: string;
}

/**
 * Which provider served the request and whether that matches the pin. `chunk` is the first chunk
 * that named anything (OpenRouter's `provider`, or the response `model` for direct routes).
 */
export function verifyRoute(
  route: Route,
  header: HeaderReader,
  chunk: NamingChunk | undefined,
): { servedProvider: string | null; mismatch: string | null } {
  switch (route.gateway) {
    case "openrouter": {
      const served = chunk?.provider ?? null;
      if (sameName(served, route.provider)) return { servedProvider: served, mismatch: null };
      return {
        servedProvider: served,
        mismatch: `served by ${served ?? "an unnamed provider"}, pinned to ${route.provider}`,
      };
    }
    case "litellm": {
      const served = header("x-litellm-model-id");
      const fallbacks = header("x-litellm-attempted-fallbacks");
      if (fallbacks !== null && fallbacks !== "0")
        return { servedProvider: served, mismatch: `gateway attempted ${fallbacks} fallbacks` };
      if (route.deployment && !sameName(served, route.deployment))
        return {
          servedProvider: served,
          mismatch: `served by deployment ${served ?? "unknown"}, pinned to ${route.deployment}`,
        };
      return { servedProvider: served ?? route.provider ?? null, mismatch: null };
    }
    case "custom": {
      const verify = route.verify;
      if (!verify) return { servedProvider: null, mismatch: null };
      const seen = "header" in verify ? header(verify.header.toLowerCase()) : fieldAt(chunk, verify.bodyField);
      const served = seen == null ? null : String(seen);
      return {
        servedProvider: served,
        mismatch: served === verify.equals ? null : `served by ${served ?? "unknown"}, expected ${verify.equals}`,
      };
    }
    default:
      return { servedProvider: chunk?.model ?? null, mismatch: null };
  }
}
