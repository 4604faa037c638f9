/**
 * @module What publish records in the results store (`PUBLISH_STATE_KEY`: what the site bucket holds,
 * what a publish began), and the site's layout publish relies on.
 */
import { z } from "zod";
import type { Store } from "../store/index.ts";
import type { Log } from "./sweep.ts";

/** The fan-out in progress, as the publish state records it (`rebuild.ts`). */
export const FanOut = z.object({
  generation: z.string(),
  /** When it began (ISO 8601): past `FAN_OUT_EXPIRY_MS` it is given up. */
  startedAt: z.string(),
  batches: z.number().int().positive(),
});
export type FanOut = z.infer<typeof FanOut>;

/** Where the built site keeps the run documents; a stored run never changes, so each is uploaded once. */
export const SITE_RUNS_PREFIX = "data/runs/";

/** Where publish records what the site bucket holds and what it began (in the results store, never public). */
export const PUBLISH_STATE_KEY = "publish/state.json";

/** What the site bucket holds, as publish left it. */
export const PublishState = z.object({
  /** The site code its pages were built by (`PublishDeps.siteVersion`). */
  siteVersion: z.string(),
  /** A full rebuild was begun and has not finished: the next publish rebuilds every page. */
  fullPending: z.boolean(),
  /** Targets whose pages a publish began to rebuild and has not finished: the next one rebuilds them too. */
  pendingTargets: z.array(z.string()),
  /** Each target's run documents' size in bytes, from the last build (an incremental build states the total). */
  runBytes: z.record(z.string(), z.number()),
  /** Each uploaded file's SHA-256 (hex), by key: a file whose bytes did not change is not uploaded again. */
  files: z.record(z.string(), z.string()),
  /** A full rebuild fanned out over the queue and not yet swapped in (`rebuild.ts`); null: none. */
  fanout: FanOut.nullable().default(null),
});
export type PublishState = z.infer<typeof PublishState>;

/**
 * Which pages a build makes: every page, or those of `targetIds` (with their models' and every page
 * that lists targets); with `shared: false` (a page batch), only the targets' and their models' pages;
 * with `everyModel`, every model's downloads (a fan-out's finishing step's).
 */
export type BuildScope =
  | { targetIds: readonly string[]; runBytes: Readonly<Record<string, number>>; shared?: boolean; everyModel?: boolean }
  | undefined;

/** The state publish recorded, or null when there is none or it is not a publish state (every page is rebuilt then). */
export async function readState(store: Store, log: Log): Promise<PublishState | null> {
  const body = await store.get(PUBLISH_STATE_KEY);
  if (body === null) return null;
  const parsed = PublishState.safeParse(JSON.parse(body));
  if (parsed.success) return parsed.data;
  log.warn(`${PUBLISH_STATE_KEY} is not a publish state; rebuilding every page`);
  return null;
}

export async function writeState(store: Store, state: PublishState): Promise<void> {
  await store.put(PUBLISH_STATE_KEY, JSON.stringify(state), { contentType: "application/json" });
}
