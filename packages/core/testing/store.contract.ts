/**
 * @module Contract suites for the store's ports (Store, RunIndex, RunClaims): one set of behaviours
 * every implementation must show, run against the folder ones and the AWS ones alike.
 * Imported by tests only (src/store/contract.test.ts and src/aws/store.contract.test.ts run them); each suite registers its own `describe` block.
 */
import { describe, expect, it } from "vitest";
import type { RunClaims } from "../src/claims/index.ts";
import { StoreError } from "../src/errors/index.ts";
import { runKey } from "../src/run/index.ts";
import { bySeries, type RunIndex, type RunIndexEntry } from "../src/run-index/index.ts";
import { entersStanding, historyPoint, type SeriesSummary } from "../src/run-index/summary.ts";
import { standingOf } from "../src/standing/index.ts";
import type { Store } from "../src/store/index.ts";

/** A fresh, empty store for one test, and a way to read back what content type a key was stored with. */
export interface StoreUnderTest {
  store: Store;
  /** Absent for stores that keep no content type (the folder store). */
  contentTypeOf?: (key: string) => Promise<string | undefined>;
}

export interface StoreContractOptions {
  /** Keys written for the pagination test; above 1000 crosses S3's page size. Default 1100. */
  manyKeys?: number;
}

/** Runs `worker` over items with at most `limit` in flight. */
export async function pool<T>(items: T[], limit: number, worker: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const run = async () => {
    for (let i = next++; i < items.length; i = next++) await worker(items[i] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, run));
}

export function storeContract(
  name: string,
  makeStore: () => Promise<StoreUnderTest>,
  options: StoreContractOptions = {},
): void {
  const manyKeys = options.manyKeys ?? 1100;

  describe(`Store contract: ${name}`, () => {
    it("returns null for a missing key and lists nothing when empty", async () => {
      const { store } = await makeStore();
      expect(await store.get("runs/none/x.json")).toBeNull();
      expect(await store.list("runs/")).toEqual([]);
    });

    it("puts, gets and replaces a body", async () => {
      const { store } = await makeStore();
      await store.put("alerts.json", "one");
      expect(await store.get("alerts.json")).toBe("one");
      await store.put("alerts.json", "two");
      expect(await store.get("alerts.json")).toBe("two");
      expect(await store.list("")).toEqual(["alerts.json"]);
    });

    it("lists keys by prefix, sorted, whatever the order of writing", async () => {
      const { store } = await makeStore();
      for (const key of ["runs/b/1.json", "runs/a/2.json", "runs/ab.json", "runs/a/1.json", "feeds/a.xml"]) {
        await store.put(key, key);
      }
      expect(await store.list("runs/a/")).toEqual(["runs/a/1.json", "runs/a/2.json"]);
      expect(await store.list("runs/a")).toEqual(["runs/a/1.json", "runs/a/2.json", "runs/ab.json"]);
      expect(await store.list("runs/")).toEqual(["runs/a/1.json", "runs/a/2.json", "runs/ab.json", "runs/b/1.json"]);
      expect(await store.list("nothing/")).toEqual([]);
    });

    it("deletes keys, a missing one no error, and leaves the others", async () => {
      const { store } = await makeStore();
      for (const key of ["publish/rebuild/g/0.json", "publish/rebuild/g/1.json", "publish/state.json"])
        await store.put(key, key);
      await store.delete(["publish/rebuild/g/0.json", "publish/rebuild/g/1.json", "publish/rebuild/g/9.json"]);
      expect(await store.list("publish/")).toEqual(["publish/state.json"]);
      expect(await store.get("publish/rebuild/g/0.json")).toBeNull();
      await store.delete([]);
      expect(await store.get("publish/state.json")).toBe("publish/state.json");
    });

    it("keeps unicode and large bodies byte for byte", async () => {
      const { store } = await makeStore();
      const unicode = '{"label":"Llama — 日本語 ünïcødé 🚀","note":"tok/s ≥ 100 \\u0000"}\n';
      const large = "ß🚀x".repeat(100_000);
      await store.put("runs/u/1.json", unicode);
      await store.put("runs/u/2.json", large);
      expect(await store.get("runs/u/1.json")).toBe(unicode);
      expect(await store.get("runs/u/2.json")).toBe(large);
      await store.put("runs/u/3.json", "");
      expect(await store.get("runs/u/3.json")).toBe("");
    });

    it("stores the content type given, or one from the key's extension", async () => {
      const { store, contentTypeOf } = await makeStore();
      await store.put("runs/t/1.json", "{}", { contentType: "application/json" });
      await store.put("feeds/alerts.xml", "<feed/>", { contentType: "application/atom+xml" });
      await store.put("runs.csv", "a,b\n");
      if (!contentTypeOf) return;
      expect(await contentTypeOf("runs/t/1.json")).toBe("application/json");
      expect(await contentTypeOf("feeds/alerts.xml")).toBe("application/atom+xml");
      expect(await contentTypeOf("runs.csv")).toMatch(/^text\/csv/);
    });

    it("rejects keys that would leave the store's root", async () => {
      const { store } = await makeStore();
      await expect(store.put("../escape.json", "x")).rejects.toBeInstanceOf(StoreError);
      await expect(store.get("/etc/passwd")).rejects.toBeInstanceOf(StoreError);
    });

    it(`lists ${manyKeys} keys across pages`, async () => {
      const { store } = await makeStore();
      const keys = Array.from({ length: manyKeys }, (_, i) => `runs/many/${String(i).padStart(5, "0")}.json`);
      await pool([...keys].reverse(), 16, (key) => store.put(key, "1"));
      await store.put("runs/other/1.json", "1");
      expect(await store.list("runs/many/")).toEqual(keys);
      expect((await store.list("runs/")).length).toBe(manyKeys + 1);
    });
  });
}

export interface RunIndexContractOptions {
  /**
   * Removes a target's kept summaries, as an index written before summaries were kept has none;
   * absent: the derive-once test is skipped.
   */
  forgetSummaries?: (targetId: string) => Promise<void>;
  /**
   * Entries of one target in the pagination test; enough to cross a 1 MB Query page. Default 1100:
   * dynalite sizes pages on a compressed form (about 1 KB an entry, against about 3 KB on DynamoDB).
   */
  manyEntries?: number;
}

/** An entry like `sample` for another run: its key follows from target, start and run id. */
export function entryAt(sample: RunIndexEntry, targetId: string, startedAt: string, runId: string): RunIndexEntry {
  return { ...sample, targetId, startedAt, finishedAt: startedAt, runId, key: runKey({ targetId, startedAt, runId }) };
}

/** `sample` is any valid entry (tests build one from a synthetic run); the suite derives the rest. */
export function runIndexContract(
  name: string,
  makeIndex: () => Promise<RunIndex>,
  sample: RunIndexEntry,
  options: RunIndexContractOptions = {},
): void {
  const manyEntries = options.manyEntries ?? 1100;
  const at = (targetId: string, day: number, runId = `r${day}`) =>
    entryAt(sample, targetId, new Date(Date.UTC(2025, 0, day, 6)).toISOString(), runId);

  describe(`RunIndex contract: ${name}`, () => {
    it("knows nothing when empty", async () => {
      const index = await makeIndex();
      expect(await index.entries()).toEqual([]);
      expect(await index.entries("t-a")).toEqual([]);
      expect(await index.targetIds()).toEqual([]);
    });

    it("returns a target's entries oldest first, however they were recorded", async () => {
      const index = await makeIndex();
      await index.record(at("t-a", 3), at("t-a", 1));
      await index.record(at("t-a", 2));
      expect((await index.entries("t-a")).map((e) => e.runId)).toEqual(["r1", "r2", "r3"]);
      expect(await index.entries("t-a")).toEqual([at("t-a", 1), at("t-a", 2), at("t-a", 3)]);
    });

    it("replaces the entry of a key recorded again", async () => {
      const index = await makeIndex();
      await index.record(at("t-a", 1), at("t-a", 2));
      await index.record({ ...at("t-a", 1), status: "partial", partialReason: "deadline" });
      const entries = await index.entries("t-a");
      expect(entries.map((e) => [e.runId, e.status, e.partialReason])).toEqual([
        ["r1", "partial", "deadline"],
        ["r2", sample.status, sample.partialReason],
      ]);
    });

    it("keeps the last entry of a key recorded twice in one call", async () => {
      const index = await makeIndex();
      await index.record(at("t-a", 1), { ...at("t-a", 1), status: "partial", partialReason: "deadline" });
      expect((await index.entries("t-a")).map((e) => [e.runId, e.status])).toEqual([["r1", "partial"]]);
    });

    it("returns every target's entries, targets in id order, each oldest first", async () => {
      const index = await makeIndex();
      await index.record(at("t-b", 2), at("t-a", 5));
      await index.record(at("t-c", 1), at("t-b", 1), at("t-a", 4));
      const all = await index.entries();
      expect(all.map((e) => `${e.targetId}/${e.runId}`)).toEqual(["t-a/r4", "t-a/r5", "t-b/r1", "t-b/r2", "t-c/r1"]);
      expect(await index.targetIds()).toEqual(["t-a", "t-b", "t-c"]);
      expect(all).toEqual([
        ...(await index.entries("t-a")),
        ...(await index.entries("t-b")),
        ...(await index.entries("t-c")),
      ]);
    });

    it("keeps every entry of one target recorded at the same time (writers that share the index)", async () => {
      const index = await makeIndex();
      const days = Array.from({ length: 16 }, (_, i) => i + 1);
      await Promise.all(days.map((day) => index.record(at("t-a", day))));
      expect((await index.entries("t-a")).map((e) => e.runId)).toEqual(days.map((d) => `r${d}`));
    });

    it("keeps each series' summary as its entries give it, however the runs were recorded", async () => {
      const index = await makeIndex();
      const recorded = summaryRuns(sample);
      // In several calls, out of order, one run recorded again (failed), one call naming two series.
      await index.record(...recorded.slice(40, 70));
      for (const e of recorded.slice(0, 40).reverse()) await index.record(e);
      await index.record(...recorded.slice(70));
      const again = recorded[75] as RunIndexEntry;
      await index.record({ ...again, status: "failed", partialReason: "again" });
      const entries = await index.entries("t-s");
      expect(entries.length).toBe(recorded.length);
      expectSummariesOf(await index.summaries("t-s"), entries);
      expect(await index.summaries("t-none")).toEqual([]);
    });

    it("summarises runs of one series recorded at the same time (writers that share the index)", async () => {
      const index = await makeIndex();
      const recorded = summaryRuns(sample).filter((e) => e.scenario === "chat");
      await index.record(...recorded.slice(0, 30));
      await Promise.all(recorded.slice(30).map((e) => index.record(e)));
      const entries = await index.entries("t-s");
      expect(entries.length).toBe(recorded.length);
      expectSummariesOf(await index.summaries("t-s"), entries);
    });

    if (options.forgetSummaries) {
      const forget = options.forgetSummaries;
      it("derives the summaries of a target recorded before they were kept, once, then keeps them up to date", async () => {
        const index = await makeIndex();
        const recorded = summaryRuns(sample);
        await index.record(...recorded.slice(0, 60));
        await forget("t-s");
        expectSummariesOf(await index.summaries("t-s"), await index.entries("t-s"));
        await forget("t-s");
        // A new run of one series: its summary is derived from every entry, the other series' kept too.
        await index.record(...recorded.slice(60, 61));
        await index.record(...recorded.slice(61));
        expectSummariesOf(await index.summaries("t-s"), await index.entries("t-s"));
      });
    }

    it(`reads back ${manyEntries} entries of one target (more than one page)`, async () => {
      const index = await makeIndex();
      const start = Date.UTC(2025, 0, 1);
      const entries = Array.from({ length: manyEntries }, (_, i) =>
        entryAt(sample, "t-many", new Date(start + i * 4 * 3600_000).toISOString(), `r${i}`),
      );
      await index.record(...[...entries].reverse());
      await index.record(at("t-few", 1));
      const read = await index.entries("t-many");
      expect(read.length).toBe(manyEntries);
      expect(read.map((e) => e.runId)).toEqual(entries.map((e) => e.runId));
      expect(read[manyEntries - 1]).toEqual(entries[manyEntries - 1]);
      expect((await index.entries()).length).toBe(manyEntries + 1);
    });
  });
}

/**
 * 90 runs of target `t-s`, every 6 hours, `chat` and `rag` in turn, some failed or partial, some with
 * an invalid level: enough that the standing's window, its cap and the history's tail all cut.
 */
function summaryRuns(sample: RunIndexEntry): RunIndexEntry[] {
  const start = Date.UTC(2025, 2, 1);
  return Array.from({ length: 90 }, (_, i) => {
    const e = entryAt(sample, "t-s", new Date(start + i * 6 * 3600_000).toISOString(), `s${i}`);
    const status = i % 7 === 3 ? "failed" : i % 11 === 5 ? "partial" : "complete";
    const levels = e.levels.map((l, j) => (i % 5 === 2 && j === 0 ? { ...l, valid: false } : l));
    return {
      ...e,
      scenario: i % 3 === 2 ? "rag" : "chat",
      status,
      partialReason: status === "complete" ? null : "x",
      levels,
    };
  });
}

/**
 * The summaries equal what the entries give, computed here without the summary's own code: per
 * series, its run count and first start, its latest entry, its standing at several build times (over
 * its kept entries, as over every entry), and its history as the tail of every run's points that
 * reaches back to the oldest run of the standing.
 */
function expectSummariesOf(summaries: SeriesSummary[], entries: RunIndexEntry[]): void {
  const series = bySeries(entries);
  expect(summaries.map((s) => s.scenario).sort()).toEqual(
    [...series.values()].map((l) => (l[0] as RunIndexEntry).scenario).sort(),
  );
  for (const summary of summaries) {
    const all = [...entries.filter((e) => e.scenario === summary.scenario)].sort(
      (a, b) => a.startedAt.localeCompare(b.startedAt) || a.key.localeCompare(b.key),
    );
    const newest = all.at(-1) as RunIndexEntry;
    expect(summary.runs).toBe(all.length);
    expect(summary.firstStartedAt).toBe(all[0]?.startedAt);
    expect(summary.entries.at(-1)).toEqual(newest);
    expect(summary.entries.every((e) => all.some((a) => JSON.stringify(a) === JSON.stringify(e)))).toBe(true);
    const hours = (n: number) => new Date(Date.parse(newest.startedAt) + n * 3_600_000).toISOString();
    for (const now of [newest.startedAt, hours(20), hours(60), hours(500)]) {
      const options = { now, scenario: summary.scenario };
      expect(standingOf("t-s", summary.entries, options)).toEqual(standingOf("t-s", all, options));
    }
    const points = all.map(historyPoint);
    expect(summary.history).toEqual(points.slice(points.length - summary.history.length));
    expect(summary.history.length).toBeGreaterThanOrEqual(Math.min(20, all.length));
    const inStanding = standingOf("t-s", all, { now: newest.startedAt, scenario: summary.scenario }).runIds;
    expect(inStanding.length).toBeGreaterThan(0);
    expect(inStanding.every((id) => summary.history.some((p) => p.runId === id))).toBe(true);
    expect(all.filter(entersStanding).length).toBeGreaterThan(inStanding.length);
  }
}

/** `makeClaims` gives a fresh, empty implementation per test (the tests reuse run ids). */
export function runClaimsContract(name: string, makeClaims: () => Promise<RunClaims>): void {
  const t0 = Date.UTC(2025, 0, 1, 6);
  const ttlMs = 60_000;
  const opts = (owner: string, nowMs = t0) => ({ targetId: "t-a", owner, nowMs, ttlMs });

  describe(`RunClaims contract: ${name}`, () => {
    it("claims a free run, and holds it against another owner until the lease ends", async () => {
      const claims = await makeClaims();
      expect(await claims.claim("run-1", opts("w1"))).toBe("claimed");
      expect(await claims.claim("run-1", opts("w2", t0 + 1000))).toBe("held");
      expect(await claims.claim("run-1", opts("w2", t0 + ttlMs))).toBe("held");
      expect(await claims.claim("run-2", opts("w2"))).toBe("claimed");
    });

    it("lets a new owner take over an expired claim, once", async () => {
      const claims = await makeClaims();
      expect(await claims.claim("run-1", opts("w1"))).toBe("claimed");
      expect(await claims.claim("run-1", opts("w2", t0 + ttlMs + 1))).toBe("claimed");
      expect(await claims.claim("run-1", opts("w3", t0 + ttlMs + 2))).toBe("held");
      expect(await claims.claim("run-1", opts("w1", t0 + ttlMs + 3))).toBe("held");
    });

    it("answers done after completion, even once the lease has ended", async () => {
      const claims = await makeClaims();
      expect(await claims.claim("run-1", opts("w1"))).toBe("claimed");
      await claims.complete("run-1", "w1");
      expect(await claims.claim("run-1", opts("w2"))).toBe("done");
      expect(await claims.claim("run-1", opts("w2", t0 + 10 * ttlMs))).toBe("done");
      expect(await claims.claim("run-1", opts("w1", t0 + 10 * ttlMs))).toBe("done");
    });

    it("refuses to complete a claim another owner holds", async () => {
      const claims = await makeClaims();
      expect(await claims.claim("run-1", opts("w1"))).toBe("claimed");
      expect(await claims.claim("run-1", opts("w2", t0 + ttlMs + 1))).toBe("claimed");
      await expect(claims.complete("run-1", "w1")).rejects.toThrow(/does not hold/);
      await expect(claims.complete("never-claimed", "w1")).rejects.toThrow(/does not hold/);
    });

    it("frees a released claim at once; a release by anyone else changes nothing", async () => {
      const claims = await makeClaims();
      expect(await claims.claim("run-1", opts("w1"))).toBe("claimed");
      await claims.release("run-1", "w2");
      expect(await claims.claim("run-1", opts("w2", t0 + 1))).toBe("held");
      await claims.release("run-1", "w1");
      expect(await claims.claim("run-1", opts("w2", t0 + 2))).toBe("claimed");
      await claims.complete("run-1", "w2");
      await claims.release("run-1", "w2");
      expect(await claims.claim("run-1", opts("w3", t0 + 3))).toBe("done");
    });

    it("renews the lease when the holder claims again", async () => {
      const claims = await makeClaims();
      expect(await claims.claim("run-1", opts("w1"))).toBe("claimed");
      expect(await claims.claim("run-1", opts("w1", t0 + ttlMs - 1))).toBe("claimed");
      expect(await claims.claim("run-1", opts("w2", t0 + ttlMs + 1))).toBe("held");
    });

    it("hands a claim from its holder to one taker, live lease or not; later takers find it held", async () => {
      const claims = await makeClaims();
      expect(await claims.claim("run-1", opts("w1"))).toBe("claimed");
      expect(await claims.handOver("run-1", "w1", opts("w2", t0 + 1))).toBe("claimed");
      // The old holder's hand-over is spent: a duplicate taker, or the old holder itself, is refused.
      expect(await claims.handOver("run-1", "w1", opts("w3", t0 + 2))).toBe("held");
      expect(await claims.claim("run-1", opts("w1", t0 + 3))).toBe("held");
      // The new holder's lease counts from the hand-over, and it may hand over again after it expired.
      expect(await claims.claim("run-1", opts("w4", t0 + ttlMs))).toBe("held");
      expect(await claims.handOver("run-1", "w2", opts("w5", t0 + 10 * ttlMs))).toBe("claimed");
      await claims.complete("run-1", "w5");
      expect(await claims.handOver("run-1", "w5", opts("w6", t0 + 10 * ttlMs))).toBe("done");
      expect(await claims.handOver("never-claimed", "w1", opts("w2"))).toBe("held");
    });

    it("gives a hand-over to exactly one of five takers racing", async () => {
      const claims = await makeClaims();
      expect(await claims.claim("race", opts("w0"))).toBe("claimed");
      const takers = ["w1", "w2", "w3", "w4", "w5"];
      const results = await Promise.all(takers.map((o) => claims.handOver("race", "w0", opts(o, t0 + 1))));
      expect(results.filter((r) => r === "claimed")).toHaveLength(1);
      expect(results.filter((r) => r === "held")).toHaveLength(4);
      const winner = takers[results.indexOf("claimed")] as string;
      await claims.complete("race", winner);
      expect(await claims.claim("race", opts("w9", t0 + 10 * ttlMs))).toBe("done");
    });

    it("gives a run to exactly one of five owners racing, fresh and after expiry", async () => {
      const claims = await makeClaims();
      const owners = ["w1", "w2", "w3", "w4", "w5"];
      const fresh = await Promise.all(owners.map((o) => claims.claim("race", opts(o))));
      expect(fresh.filter((r) => r === "claimed")).toHaveLength(1);
      expect(fresh.filter((r) => r === "held")).toHaveLength(4);
      const late = await Promise.all(owners.map((o) => claims.claim("race", opts(`${o}-late`, t0 + ttlMs + 1))));
      expect(late.filter((r) => r === "claimed")).toHaveLength(1);
      expect(late.filter((r) => r === "held")).toHaveLength(4);
    });
  });
}
