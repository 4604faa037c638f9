/**
 * @module Publishing on in-memory ports (site bucket, CDN, ledger, a recording channel) over the folder
 * store: alerts delivered once, the built site uploaded with its content types, run documents once.
 */
import { mkdtempSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Alert } from "../alerts/index.ts";
import { MemoryAlertLedger } from "../ledger/memory.ts";
import type { Channel } from "../notify/index.ts";
import { StoreRunIndex } from "../run-index/store.ts";
import { FolderStore } from "../store/folder.ts";
import { MemoryCdn, MemoryQueue, MemorySiteBucket, type PublishDeps, publishBatch } from "./index.ts";
import { type BuildScope, PUBLISH_STATE_KEY } from "./publish.ts";
import { FAN_OUT_EXPIRY_MS, MemoryRebuildLedger, REBUILD_STAGING_PREFIX } from "./rebuild.ts";

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

function temp(): string {
  const dir = mkdtempSync(join(tmpdir(), "kneeboard-publish-"));
  dirs.push(dir);
  return dir;
}

/** A stand-in for the site build: writes a page, the downloads and one run document per call. */
function fakeBuild(runKeys: string[]) {
  let builds = 0;
  const build = async (outDir: string) => {
    builds++;
    const files: Record<string, string> = {
      "index.html": `<p>build ${builds}</p>`,
      "data/runs.csv": "a,b\n",
      "feeds/alerts.xml": "<feed/>",
      ...Object.fromEntries(runKeys.map((k) => [`data/${k}`, "{}"])),
    };
    for (const [key, body] of Object.entries(files)) {
      await mkdir(dirname(join(outDir, key)), { recursive: true });
      await writeFile(join(outDir, key), body);
    }
    return { runBytes: {} };
  };
  return build;
}

function deps(overrides: Partial<PublishDeps> = {}) {
  const store = new FolderStore(temp());
  const sent: Alert[] = [];
  const channel: Channel = { name: "test", send: async (a) => void sent.push(a) };
  const lines: string[] = [];
  const d: PublishDeps = {
    store,
    index: new StoreRunIndex(store),
    ledger: new MemoryAlertLedger(),
    channels: [channel],
    buildSite: fakeBuild(["runs/t/1.json"]),
    outDir: temp(),
    siteBucket: new MemorySiteBucket(),
    cdn: new MemoryCdn(),
    now: "2026-12-03T07:00:00.000Z",
    log: { info: (m) => lines.push(m), warn: (m) => lines.push(`WARN ${m}`) },
    ...overrides,
  };
  return { d, sent, lines };
}

describe("publishBatch", () => {
  it("uploads the built site with one content type per extension, then invalidates the CDN", async () => {
    const { d } = deps();
    const summary = await publishBatch([{ messageId: "p1", body: JSON.stringify({ runs: ["r1"] }) }], d);
    expect(summary).toMatchObject({ messages: 1, rejected: 0, alerts: 0, files: 4, invalidated: true });
    const bucket = d.siteBucket as MemorySiteBucket;
    expect(Object.fromEntries([...bucket.files].map(([k, f]) => [k, f.contentType]))).toEqual({
      "index.html": "text/html; charset=utf-8",
      "data/runs.csv": "text/csv; charset=utf-8",
      "feeds/alerts.xml": "application/atom+xml",
      "data/runs/t/1.json": "application/json",
    });
    expect((d.cdn as MemoryCdn).invalidations).toEqual([{ paths: ["/*"], reference: d.now }]);
  });

  it("uploads a run document once; pages every time", async () => {
    const { d } = deps();
    const first = await publishBatch([], d);
    const again = await publishBatch([], d);
    expect(first.files - again.files).toBe(1);
    expect((d.siteBucket as MemorySiteBucket).puts.filter((k) => k === "data/runs/t/1.json")).toHaveLength(1);
    expect((d.siteBucket as MemorySiteBucket).puts.filter((k) => k === "index.html")).toHaveLength(2);
  });

  it("deletes what the new build no longer has, after uploading it, but never a run document", async () => {
    const { d } = deps();
    const bucket = d.siteBucket as MemorySiteBucket;
    const html = new TextEncoder().encode("<p>old</p>");
    await bucket.put("targets/gone/index.html", html, "text/html; charset=utf-8");
    await bucket.put("data/runs/gone/1.json", new TextEncoder().encode("{}"), "application/json");
    const summary = await publishBatch([], d);
    expect(summary.deleted).toBe(1);
    expect([...bucket.files.keys()].sort()).toEqual([
      "data/runs.csv",
      "data/runs/gone/1.json",
      "data/runs/t/1.json",
      "feeds/alerts.xml",
      "index.html",
    ]);
    expect((await publishBatch([], d)).deleted).toBe(0);
  });

  it("reports a malformed message and still publishes; without a CDN nothing is invalidated", async () => {
    const { d, lines } = deps({ cdn: undefined });
    const summary = await publishBatch(
      [
        { messageId: "ok", body: JSON.stringify({ runs: ["r1"] }) },
        { messageId: "empty", body: JSON.stringify({ runs: [] }) },
        { messageId: "junk", body: "junk" },
      ],
      d,
    );
    expect(summary).toMatchObject({ messages: 1, rejected: 2, invalidated: false });
    expect(summary.batchItemFailures).toEqual([{ itemIdentifier: "empty" }, { itemIdentifier: "junk" }]);
    expect(summary.files).toBeGreaterThan(0);
    expect(lines.filter((l) => l.startsWith("WARN rejected publish message"))).toHaveLength(2);
  });

  it("writes the feeds into the store dated by the publish on an empty store, linking themselves under the site URL", async () => {
    const { d } = deps({ siteUrl: "https://kneeboard.example" });
    await publishBatch([], d);
    const feed = (await d.store.get("feeds/alerts.xml")) as string;
    expect(feed).toContain(`<updated>${d.now}</updated>`);
    expect(feed).toContain(
      '<link rel="self" type="application/atom+xml" href="https://kneeboard.example/feeds/alerts.xml"/>',
    );
  });
});

describe("publishing only what a batch of sweeps changed", () => {
  /** A build that records what it was asked to build and writes one page per target it builds. */
  function scopedBuild(all: string[]) {
    const asked: (readonly string[] | null)[] = [];
    const build = async (outDir: string, _now: string, only?: BuildScope) => {
      asked.push(only ? only.targetIds : null);
      for (const id of only ? only.targetIds : all) {
        await mkdir(join(outDir, "targets", id), { recursive: true });
        await writeFile(join(outDir, "targets", id, "index.html"), `<p>${id} ${asked.length}</p>`);
      }
      await writeFile(join(outDir, "index.html"), `<p>ranking ${asked.length}</p>`);
      return { runBytes: {} };
    };
    return { build, asked };
  }
  const message = (targets?: string[]) => ({
    messageId: `m-${targets?.join("-") ?? "all"}`,
    body: JSON.stringify(targets ? { runs: ["r"], targets } : { runs: ["r"] }),
  });

  it("builds every page first, then only the named targets' (with the rankings), then every page again when the site's code changes", async () => {
    const { build, asked } = scopedBuild(["a", "b", "c"]);
    const { d } = deps({ buildSite: build, siteVersion: "v1" });
    expect((await publishBatch([message(["a"])], d)).full).toBe(true);
    const bucket = d.siteBucket as MemorySiteBucket;
    const before = bucket.puts.length;
    const second = await publishBatch([message(["b"]), message(["c", "b"])], d);
    expect(second).toMatchObject({ full: false, deleted: 0 });
    expect(bucket.puts.slice(before).sort()).toEqual(["index.html", "targets/b/index.html", "targets/c/index.html"]);
    // A's page stays as the first publish wrote it.
    expect(new TextDecoder().decode(bucket.files.get("targets/a/index.html")?.body)).toBe("<p>a 1</p>");
    expect((await publishBatch([message(["a"])], { ...d, siteVersion: "v2" })).full).toBe(true);
    // A message naming no targets (sent by hand) rebuilds every page.
    expect((await publishBatch([message(["a"]), message()], { ...d, siteVersion: "v2" })).full).toBe(true);
    expect(asked).toEqual([null, ["b", "c"], null, null]);
  });

  it("finishes what a publish that died began: its targets' pages, or every page", async () => {
    const { build, asked } = scopedBuild(["a", "b"]);
    const { d } = deps({ buildSite: build, siteVersion: "v1" });
    await publishBatch([], d);
    const dying = async () => {
      throw new Error("killed");
    };
    await expect(publishBatch([message(["a"])], { ...d, buildSite: dying })).rejects.toThrow("killed");
    expect(JSON.parse((await d.store.get(PUBLISH_STATE_KEY)) as string)).toMatchObject({
      fullPending: false,
      pendingTargets: ["a"],
    });
    expect((await publishBatch([message(["b"])], d)).full).toBe(false);
    await expect(publishBatch([], { ...d, buildSite: dying })).rejects.toThrow("killed");
    expect((await publishBatch([message(["b"])], d)).full).toBe(true);
    expect(asked).toEqual([null, ["a", "b"], null]);
    expect(JSON.parse((await d.store.get(PUBLISH_STATE_KEY)) as string)).toMatchObject({
      fullPending: false,
      pendingTargets: [],
    });
  });
});

describe("a full rebuild fanned out (memory ports; e2e-aws-fanout.test.ts runs it on the AWS stand-ins)", () => {
  /** A build of one page per target it is asked for, and the ranking unless told to leave the shared pages out. */
  async function build(outDir: string, now: string, only?: BuildScope) {
    await rm(outDir, { recursive: true, force: true });
    await mkdir(outDir, { recursive: true });
    for (const id of only ? only.targetIds : ["a", "b", "c"]) {
      await mkdir(join(outDir, "targets", id), { recursive: true });
      await writeFile(join(outDir, "targets", id, "index.html"), `<p>${id} at ${now}</p>`);
    }
    if (only?.shared !== false) await writeFile(join(outDir, "index.html"), `<p>ranking at ${now}</p>`);
    return { runBytes: {} };
  }

  it("defers publishes while it runs, gives it up after its expiry, and drops the given-up rebuild's batches", async () => {
    const queue = new MemoryQueue();
    const { d } = deps({ buildSite: build, siteVersion: "v1" });
    const index = new StoreRunIndex(d.store);
    index.targetIds = async () => ["a", "b", "c"];
    const ledger = new MemoryRebuildLedger();
    const fanOut = { queue, ledger, maxTargets: 2 };
    const at = (ms: number) => ({ ...d, index, fanOut, now: new Date(Date.parse(d.now) + ms).toISOString() });
    const deliver = (ms: number, bodies: string[]) =>
      publishBatch(
        bodies.map((body, i) => ({ messageId: `b${i}`, body })),
        at(ms),
      );

    expect((await publishBatch([], at(0))).fannedOut).toBe(3);
    const first = queue.take().map((m) => m.body);
    const waiting = await publishBatch(
      [{ messageId: "sweep", body: JSON.stringify({ runs: ["r"], targets: ["a"] }) }],
      at(1),
    );
    expect([waiting.deferred, waiting.batchItemFailures]).toEqual([1, [{ itemIdentifier: "sweep" }]]);
    expect((await deliver(2, first.slice(0, 2))).pageBatches).toBe(2);

    // Its third batch never comes (dead-lettered): past the expiry, a publish begins another rebuild.
    expect((await publishBatch([], at(FAN_OUT_EXPIRY_MS))).fannedOut).toBe(3);
    const second = queue.take().map((m) => m.body);
    const late = await deliver(FAN_OUT_EXPIRY_MS + 1, first.slice(2));
    expect([late.pageBatches, late.swapped, late.batchItemFailures]).toEqual([0, false, []]);

    // The new rebuild's batches, one invocation each: each renders its target's page alone, the last
    // the ranking too, once; it swaps in and clears every staging and every manifest, the given-up one's too.
    expect((await d.store.list("publish/rebuild/")).length).toBe(2);
    const swaps = [];
    for (const body of second) {
      const { swapped, pagesBuilt } = await deliver(FAN_OUT_EXPIRY_MS + 2, [body]);
      swaps.push({ swapped, pagesBuilt });
    }
    expect(swaps).toEqual([
      { swapped: false, pagesBuilt: 1 },
      { swapped: false, pagesBuilt: 1 },
      { swapped: true, pagesBuilt: 2 },
    ]);
    const bucket = d.siteBucket as MemorySiteBucket;
    expect((await bucket.list(REBUILD_STAGING_PREFIX)).length).toBe(0);
    expect(await d.store.list("publish/rebuild/")).toEqual([]);
    // The ledger forgets the swapped rebuild; the given-up one's record is left to expire (a TTL on AWS).
    const generationOf = (body: string) => (JSON.parse(body) as { rebuild: { generation: string } }).rebuild.generation;
    expect(ledger.generations()).toEqual([generationOf(first[0] as string)]);
    const page = (key: string) => new TextDecoder().decode(bucket.files.get(key)?.body);
    const now = at(FAN_OUT_EXPIRY_MS).now;
    expect([page("targets/a/index.html"), page("targets/c/index.html"), page("index.html")]).toEqual([
      `<p>a at ${now}</p>`,
      `<p>c at ${now}</p>`,
      `<p>ranking at ${now}</p>`,
    ]);
    expect(JSON.parse((await d.store.get(PUBLISH_STATE_KEY)) as string)).toMatchObject({
      fanout: null,
      fullPending: false,
    });
  });
});
