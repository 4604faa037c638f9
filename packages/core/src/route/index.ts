/**
 * @module A target's route (docs/config.md, `targets[].route`): how requests reach the provider and
 * how the serving provider is pinned and verified. The config reads it, the client follows it; it
 * sits below both so neither imports the other for it.
 */
import { z } from "zod";

/** A name given in the config (a provider, a header): the config's own names have the same bounds. */
const Name = z.string().min(1).max(200);

const OpenRouterRoute = z.strictObject({ gateway: z.literal("openrouter"), provider: Name });
const LiteLLMRoute = z.strictObject({
  gateway: z.literal("litellm"),
  provider: Name.optional(),
  deployment: Name.optional(),
});
const DirectRoute = z.strictObject({ gateway: z.literal("direct"), provider: Name.optional() });
const CustomRoute = z.strictObject({
  gateway: z.literal("custom"),
  provider: Name.optional(),
  body: z.record(z.string(), z.unknown()).optional(),
  headers: z.record(z.string(), z.string()).optional(),
  verify: z
    .union(
      [z.strictObject({ header: Name, equals: z.string() }), z.strictObject({ bodyField: Name, equals: z.string() })],
      { error: "must be { header, equals } or { bodyField, equals }, both strings" },
    )
    .optional(),
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
