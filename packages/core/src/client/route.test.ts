/** @module Route pinning and verification alone: the fields each gateway is sent, and who served by its headers or chunk. */
import { describe, expect, it } from "vitest";
import type { Route } from "../route/index.ts";
import { type HeaderReader, pinning, verifyRoute } from "./route.ts";

const headers =
  (values: Record<string, string>): HeaderReader =>
  (name) =>
    values[name] ?? null;
const none = headers({});

describe("pinning", () => {
  it("pins OpenRouter to one provider without fallbacks, LiteLLM without fallbacks or retries, custom as configured", () => {
    expect(pinning({ gateway: "openrouter", provider: "alpha" } as Route)).toEqual({
      body: { provider: { order: ["alpha"], allow_fallbacks: false } },
      headers: {},
    });
    expect(pinning({ gateway: "litellm" } as Route)).toEqual({
      body: { disable_fallbacks: true },
      headers: { "x-litellm-num-retries": "0" },
    });
    expect(pinning({ gateway: "custom", body: { region: "east" }, headers: { "x-pin": "east" } } as Route)).toEqual({
      body: { region: "east" },
      headers: { "x-pin": "east" },
    });
    expect(pinning({ gateway: "direct" } as Route)).toEqual({ body: {}, headers: {} });
  });
});

describe("verifyRoute", () => {
  it("holds OpenRouter's served provider to the pin, case aside", () => {
    const route = { gateway: "openrouter", provider: "alpha" } as Route;
    expect(verifyRoute(route, none, { provider: "Alpha" })).toEqual({ servedProvider: "Alpha", mismatch: null });
    expect(verifyRoute(route, none, { provider: "gamma" }).mismatch).toBe("served by gamma, pinned to alpha");
    expect(verifyRoute(route, none, undefined).mismatch).toBe("served by an unnamed provider, pinned to alpha");
  });

  it("reads LiteLLM's headers: attempted fallbacks and the deployment", () => {
    const route = { gateway: "litellm", deployment: "dep-1" } as Route;
    expect(verifyRoute(route, headers({ "x-litellm-model-id": "dep-1" }), undefined)).toEqual({
      servedProvider: "dep-1",
      mismatch: null,
    });
    expect(
      verifyRoute(route, headers({ "x-litellm-model-id": "dep-1", "x-litellm-attempted-fallbacks": "1" }), undefined)
        .mismatch,
    ).toBe("gateway attempted 1 fallbacks");
    expect(verifyRoute(route, headers({ "x-litellm-model-id": "dep-2" }), undefined).mismatch).toBe(
      "served by deployment dep-2, pinned to dep-1",
    );
  });

  it("checks a custom route's header or body field, and names a direct route's model", () => {
    const byField = { gateway: "custom", verify: { bodyField: "meta.served", equals: "east" } } as Route;
    expect(verifyRoute(byField, none, { meta: { served: "east" } } as never).mismatch).toBeNull();
    expect(verifyRoute(byField, none, { meta: { served: "west" } } as never).mismatch).toBe(
      "served by west, expected east",
    );
    const byHeader = { gateway: "custom", verify: { header: "X-Region", equals: "east" } } as Route;
    expect(verifyRoute(byHeader, headers({ "x-region": "east" }), undefined)).toEqual({
      servedProvider: "east",
      mismatch: null,
    });
    expect(verifyRoute({ gateway: "direct" } as Route, none, { model: "m-served" }).servedProvider).toBe("m-served");
  });
});
