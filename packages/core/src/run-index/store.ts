/**
 * @module The run index kept in a store (the folder store locally): one JSON file per target, and
 * beside it one of its series' summaries.
 */
import { z } from "zod";
import { StoreError } from "../errors/index.ts";
import type { Store } from "../store/index.ts";
import { type RunIndex, RunIndexEntry } from "./index.ts";
import { SeriesSummary, sameKeeps, summarizeAll } from "./summary.ts";

/** Target ids must be safe as one key segment. */
const TargetIdSegment = /^[A-Za-z0-9._-]+$/;

/**
 * The run index kept in a store, one JSON file per target (`index/runs/<targetId>.json`), and its
 * series' summaries (`index/series/<targetId>.json`), rewritten from its entries on each record.
 */
export class StoreRunIndex implements RunIndex {
  constructor(private readonly store: Store) {}

  private keyOf(targetId: string): string {
    if (!TargetIdSegment.test(targetId)) throw new StoreError(`invalid target id for the index: ${targetId}`);
    return `index/runs/${targetId}.json`;
  }

  private summariesKeyOf(targetId: string): string {
    return `index/series/${this.keyOf(targetId).slice("index/runs/".length)}`;
  }

  /** Writes a target's summaries from all of its entries (under its entries' lock). */
  private async writeSummaries(targetId: string, all: RunIndexEntry[]): Promise<SeriesSummary[]> {
    const summaries = summarizeAll(all).sort((a, b) => a.scenario.localeCompare(b.scenario));
    await this.store.put(this.summariesKeyOf(targetId), JSON.stringify(summaries), { contentType: "application/json" });
    return summaries;
  }

  private locked<T>(targetId: string, fn: () => Promise<T>): Promise<T> {
    const key = this.keyOf(targetId);
    return this.store.exclusive ? this.store.exclusive(key, fn) : fn();
  }

  private async read(key: string): Promise<RunIndexEntry[]> {
    const body = await this.store.get(key);
    if (body === null) return [];
    const parsed = z.array(RunIndexEntry).safeParse(JSON.parse(body));
    if (!parsed.success) throw new StoreError(`${key} is not a valid run index: ${parsed.error.issues[0]?.message}`);
    return parsed.data;
  }

  async record(...entries: RunIndexEntry[]): Promise<void> {
    // Per target, by run key: a key recorded twice (in one call or across calls) keeps its last entry.
    const byTarget = new Map<string, Map<string, RunIndexEntry>>();
    for (const e of entries) {
      const fresh = byTarget.get(e.targetId) ?? new Map<string, RunIndexEntry>();
      fresh.set(e.key, RunIndexEntry.parse(e));
      byTarget.set(e.targetId, fresh);
    }
    for (const [targetId, fresh] of byTarget) {
      const key = this.keyOf(targetId);
      // Two processes recording runs of one target must not both read the old list and drop each other's entry.
      await this.locked(targetId, async () => {
        const rest = (await this.read(key)).filter((e) => !fresh.has(e.key));
        const all = [...rest, ...fresh.values()].sort((a, b) => a.key.localeCompare(b.key));
        await this.store.put(key, JSON.stringify(all), { contentType: "application/json" });
        await this.writeSummaries(targetId, all);
      });
    }
  }

  async summaries(targetId: string): Promise<SeriesSummary[]> {
    const kept = await this.readSummaries(targetId);
    if (kept) return kept;
    // Recorded before summaries were kept (or by another rule): derived once from the entries, and kept.
    return this.locked(targetId, async () => {
      const all = await this.read(this.keyOf(targetId));
      return all.length === 0 ? [] : this.writeSummaries(targetId, all);
    });
  }

  /** The kept summaries, or null when there are none or they were kept by another rule. */
  private async readSummaries(targetId: string): Promise<SeriesSummary[] | null> {
    const key = this.summariesKeyOf(targetId);
    const body = await this.store.get(key);
    if (body === null) return null;
    const parsed = z.array(SeriesSummary).safeParse(JSON.parse(body));
    if (!parsed.success) throw new StoreError(`${key} is not a valid summary: ${parsed.error.issues[0]?.message}`);
    return parsed.data.every(sameKeeps) ? parsed.data : null;
  }

  async entries(targetId?: string): Promise<RunIndexEntry[]> {
    if (targetId) return this.read(this.keyOf(targetId));
    const all: RunIndexEntry[] = [];
    for (const id of await this.targetIds()) all.push(...(await this.read(this.keyOf(id))));
    return all;
  }

  async targetIds(): Promise<string[]> {
    return (await this.store.list("index/runs/"))
      .filter((k) => k.endsWith(".json"))
      .map((k) => k.slice("index/runs/".length, -".json".length))
      .sort();
  }
}
