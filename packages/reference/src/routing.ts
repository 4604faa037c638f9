/**
 * @module Routing a chat request to the engine that serves it: a model's own, or a gateway's provider,
 * the one `provider.order` pins (else the gateway's default), except where the provider falls back.
 */
import { Engine } from "./engine.ts";
import { PrefixCache } from "./prefix-cache.ts";
import type { ModelSpec, StreamProfile } from "./stream-profile.ts";

/** One engine and what the server keeps of it. */
export interface Served {
  engine: Engine;
  profile: StreamProfile;
  /** The model's prefix cache, when its profile has one. */
  cache?: PrefixCache;
  bucket?: { tokens: number; lastMs: number };
  /** Requests to this model so far, and those being served now. */
  arrived: number;
  serving: number;
}

/** The server's models: each engine by model id (a gateway's as `gateway/provider`), and the gateways. */
export interface Models {
  served: Map<string, Served>;
  gateways: Map<string, Extract<ModelSpec, { kind: "gateway" }>>;
  /** Requests pinned to each provider so far, for its `fallbackEvery`. */
  counters: Map<string, number>;
  /** Which gateway requests were served by another provider than pinned, in arrival order. */
  fallbacks: { model: string; pinned: string; served: string }[];
}

/** The engines of the models, each started idle. */
export function modelsOf(specs: readonly ModelSpec[]): Models {
  const models: Models = { served: new Map(), gateways: new Map(), counters: new Map(), fallbacks: [] };
  for (const spec of specs) {
    if (spec.kind === "model") models.served.set(spec.id, serve(spec.profile));
    else {
      models.gateways.set(spec.id, spec);
      for (const p of spec.providers) models.served.set(`${spec.id}/${p.name}`, serve(p.profile));
    }
  }
  return models;
}

function serve(profile: StreamProfile): Served {
  return {
    engine: new Engine(profile),
    profile,
    ...(profile.prefixCache ? { cache: new PrefixCache(profile.prefixCache, profile.charsPerPromptToken) } : {}),
    arrived: 0,
    serving: 0,
  };
}

/** Where a request goes: its engine, and through a gateway its provider and whether it fell back. */
export interface Route {
  target: Served;
  /** The gateway's provider that serves it; null for a model served directly. */
  provider: string | null;
  fellBack: boolean;
  viaGateway: boolean;
}

/** The route of a request for `model` (its body's `provider.order` pins a gateway's provider), or why there is none (404). */
export function routeChat(models: Models, model: string, body: Record<string, unknown>): Route | { notFound: string } {
  let target = models.served.get(model);
  let provider: string | null = null;
  let fellBack = false;
  const gateway = models.gateways.get(model);
  if (gateway) {
    const order = (body.provider as { order?: string[] } | undefined)?.order;
    const pinned = order?.[0] ?? gateway.defaultProvider;
    const entry = gateway.providers.find((p) => p.name.toLowerCase() === pinned.toLowerCase());
    if (!entry) return { notFound: `no provider ${pinned} for ${model}` };
    const n = (models.counters.get(entry.name) ?? 0) + 1;
    models.counters.set(entry.name, n);
    provider = entry.name;
    // The pin is honoured except every k-th request, to exercise verification.
    if (entry.fallbackEvery && n % entry.fallbackEvery === 0) {
      const other = gateway.providers.find((p) => p !== entry);
      if (other) {
        provider = other.name;
        fellBack = true;
        models.fallbacks.push({ model, pinned: entry.name, served: other.name });
      }
    }
    target = models.served.get(`${model}/${provider}`);
  }
  if (!target) return { notFound: `The model ${model} does not exist` };
  return { target, provider, fellBack, viaGateway: gateway !== undefined };
}
