/** @module What the config's checks share: how they run, the targets they walk, and how they report a problem at its path. */
import type { z } from "zod";

/** Run a check even where its value has other problems (a wrong type, say), so all are reported together. */
export const ALWAYS = { when: () => true };

/** The targets of a config being checked, each an object whatever else is wrong with it (a non-object as `{}`). */
export function targetsOf(config: unknown): { id?: unknown; apiKeyEnv?: unknown; scenarios?: unknown }[] {
  const targets = (config as { targets?: unknown } | null)?.targets;
  return Array.isArray(targets) ? targets.map((target) => (isObject(target) ? target : {})) : [];
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A problem found by a check, at `path` under the value it checks. */
export function problem(ctx: z.RefinementCtx, path: PropertyKey[], message: string): void {
  ctx.addIssue({ code: "custom", path, message });
}
