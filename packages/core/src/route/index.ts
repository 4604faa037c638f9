/**
 * @module A target's route (docs/config.md, `targets[].route`): how requests reach the provider and
 * how the serving provider is pinned and verified. The config reads it, the client follows it; it
 * sits below both so neither imports the other for it.
 */
import { z } from "zod";

/** A name given in the config (a provider, a header): the config's own names have the same bounds. */
const Name = z.string().min(1).max(200);

/** A gateway's other routes: the provider is only recorded. */
const RecordedProvider = Name.optional().meta({
  description: "The provider serving the route, 1 to 200 characters, recorded as the route's provider. Default none.",
});
const Equals = z.string().meta({ description: "The value the response must carry there, a string. Required." });

const OpenRouterRoute = z.strictObject({
  gateway: z.literal("openrouter").meta({
    description:
      "openrouter: through OpenRouter, pinned to one provider with fallbacks off; verified by the provider field OpenRouter adds to each chunk.",
  }),
  provider: Name.meta({
    description:
      "The OpenRouter provider to pin, 1 to 200 characters, sent as provider: { order: [provider], allow_fallbacks: false }; the response chunks' provider must name it (case aside). Required.",
  }),
});
const LiteLLMRoute = z.strictObject({
  gateway: z.literal("litellm").meta({
    description:
      "litellm: through a LiteLLM proxy, sent with disable_fallbacks and x-litellm-num-retries: 0; verified by the response's x-litellm-attempted-fallbacks (must be 0).",
  }),
  provider: RecordedProvider,
  deployment: Name.optional().meta({
    description:
      "The LiteLLM deployment's model id, 1 to 200 characters; the response header x-litellm-model-id must equal it. Default none (not checked).",
  }),
});
const DirectRoute = z.strictObject({
  gateway: z.literal("direct").meta({
    description: "direct: no gateway, the endpoint is the provider; the response's model is recorded.",
  }),
  provider: RecordedProvider,
});
const CustomRoute = z.strictObject({
  gateway: z.literal("custom").meta({
    description: "custom: body and headers are sent with each request, and verify is checked on every response.",
  }),
  provider: RecordedProvider,
  body: z
    .record(z.string(), z.unknown())
    .optional()
    .meta({ description: "An object merged into each request body. Default none." }),
  headers: z
    .record(z.string(), z.string())
    .optional()
    .meta({ description: "String headers added to each request. Default none." }),
  verify: z
    .union(
      [
        z.strictObject({ header: Name.meta({ description: "A response header name. Required." }), equals: Equals }),
        z.strictObject({
          bodyField: Name.meta({ description: "A top-level field of the response chunks. Required." }),
          equals: Equals,
        }),
      ],
      { error: "must be { header, equals } or { bodyField, equals }, both strings" },
    )
    .optional()
    .meta({
      description:
        "What every response must carry: { header, equals } or { bodyField, equals }; a response without it is recorded as route_mismatch. Default none.",
    }),
});
/** How requests reach the provider and how the serving provider is pinned and verified. */
export const Route = z.discriminatedUnion("gateway", [OpenRouterRoute, LiteLLMRoute, DirectRoute, CustomRoute], {
  error: (issue) => {
    if (issue.code !== "invalid_union") return undefined;
    const gateway = (issue.input as { gateway?: unknown } | undefined)?.gateway;
    const expected = "expected openrouter, litellm, direct or custom";
    return gateway === undefined
      ? `gateway is required: ${expected}`
      : `unknown gateway ${JSON.stringify(gateway)}: ${expected}`;
  },
});
export type Route = z.infer<typeof Route>;

/**
 * Whether a base URL names this machine (loopback or localhost): a Lambda cannot reach it, and a
 * gateway route there is a stand-in (a local proxy, the reference server), not the gateway itself.
 */
export function isLocalOnly(baseURL: string): boolean {
  const host = new URL(baseURL).hostname.replace(/^\[|\]$/g, "");
  return (
    host === "localhost" || host.endsWith(".localhost") || /^127\./.test(host) || host === "::1" || host === "0.0.0.0"
  );
}
