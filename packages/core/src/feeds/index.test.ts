/** @module Atom feeds parsed back with a real XML parser: structure, stable entry ids, updates, escaping; the written keys. */
import { XMLParser } from "fast-xml-parser";
import { describe, expect, it } from "vitest";
import { ALERTS_KEY, type Alert, AlertsFile } from "../alerts/index.ts";
import type { Store } from "../store/index.ts";
import { alertText, atomFeed, feedUpdated, writeAlerts } from "./index.ts";

const HOSTILE = `<img src=x onerror=alert(1)> & "quotes"`;

function alert(overrides: Partial<Alert> = {}): Alert {
  return {
    id: "0123456789abcdef",
    targetId: "t1",
    scenario: "chat",
    label: HOSTILE,
    kind: "regression",
    state: "open",
    severity: "warning",
    metrics: ["peakAggregateOutputTokensPerSecond"],
    changes: [
      {
        metric: "peakAggregateOutputTokensPerSecond",
        before: { median: 812, spread: 20, runs: 40 },
        after: { median: 560, spread: 15, runs: 3 },
        relativeChange: 560 / 812 - 1,
      },
    ],
    served: null,
    changedAt: "2025-01-02T00:00:00.000Z",
    openedAt: "2025-01-02T02:00:00.000Z",
    resolvedAt: null,
    updatedAt: "2025-01-02T02:00:00.000Z",
    runIds: ["r1", "r2", "r3"],
    title: `${HOSTILE}: Peak aggregate fell 31 % (812 → 560 tok/s)`,
    ...overrides,
  };
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  isArray: (name) => name === "entry" || name === "link" || name === "category",
});

interface Entry {
  id: string;
  title: { "#text": string };
  updated: string;
  published: string;
  summary: { "#text": string };
  link: { "@href": string }[];
}

function parse(xml: string) {
  const doc = parser.parse(xml);
  return doc.feed as {
    "@xmlns": string;
    id: string;
    title: { "#text": string };
    updated: string;
    author: { name: string };
    entry?: Entry[];
    link?: { "@rel": string; "@href": string }[];
  };
}

class MemoryStore implements Store {
  readonly data = new Map<string, string>();
  async put(key: string, body: string) {
    this.data.set(key, body);
  }
  async get(key: string) {
    return this.data.get(key) ?? null;
  }
  async list(prefix: string) {
    return [...this.data.keys()].filter((k) => k.startsWith(prefix)).sort();
  }
  async delete(keys: string[]) {
    for (const key of keys) this.data.delete(key);
  }
}

describe("atomFeed", () => {
  it("is Atom with the required feed and entry elements, and escapes hostile text", () => {
    const alerts = [
      alert(),
      alert({
        id: "fedcba9876543210",
        kind: "improvement",
        state: "resolved",
        severity: "info",
        resolvedAt: "2025-01-02T02:00:00.000Z",
      }),
    ];
    const xml = atomFeed({
      id: "urn:kneeboard:feed:alerts",
      title: `alerts & ${HOSTILE}`,
      alerts,
      updated: feedUpdated(alerts, "2025-02-01T00:00:00.000Z"),
      selfHref: "alerts.xml",
    });
    expect(xml).not.toContain("<img");
    const feed = parse(xml);
    expect(feed["@xmlns"]).toBe("http://www.w3.org/2005/Atom");
    expect(feed.id).toBe("urn:kneeboard:feed:alerts");
    expect(feed.title["#text"]).toBe(`alerts & ${HOSTILE}`);
    expect(feed.updated).toBe("2025-01-02T02:00:00.000Z");
    expect(feed.author.name).toBe("kneeboard");
    expect(feed.link?.[0]).toMatchObject({ "@rel": "self", "@href": "alerts.xml" });
    expect(feed.entry?.map((e) => e.id)).toEqual([
      "urn:kneeboard:alert:0123456789abcdef",
      "urn:kneeboard:alert:fedcba9876543210",
    ]);
    const [first] = feed.entry as [Entry];
    expect(first.title["#text"]).toBe(`[open] ${HOSTILE}: Peak aggregate fell 31 % (812 → 560 tok/s)`);
    expect(first.updated).toBe("2025-01-02T02:00:00.000Z");
    expect(first.published).toBe("2025-01-02T02:00:00.000Z");
    expect(first.summary["#text"]).toContain("before 812 ± 20");
    expect(first.summary["#text"]).toContain("after 560 ± 15");
    expect(first.summary["#text"]).toContain("State: open");
    expect(first.link[0]?.["@href"]).toBe("../alerts/#0123456789abcdef");
  });

  it("names a scenario other than chat in the entry text, and puts its alerts in the target's feed", async () => {
    expect(alertText(alert())).toContain("Target: t1. Changed at");
    expect(alertText(alert({ scenario: "rag" }))).toContain("Target: t1, scenario rag. Changed at");
    const bodies = new Map<string, string>();
    const store = {
      put: async (key: string, body: string) => void bodies.set(key, body),
    } as unknown as Store;
    await writeAlerts(store, [alert(), alert({ id: "fedcba9876543210", scenario: "rag" })], {
      now: "2025-01-03T00:00:00.000Z",
      targetIds: ["t1"],
    });
    expect((bodies.get("feeds/t1.xml")?.match(/<entry>/g) ?? []).length).toBe(2);
  });

  it("links entries under the site URL when one is given", () => {
    const xml = atomFeed({
      id: "x",
      title: "x",
      alerts: [alert()],
      updated: "2025-01-01T00:00:00Z",
      siteUrl: "https://kneeboard.example/",
    });
    expect(parse(xml).entry?.[0]?.link[0]?.["@href"]).toBe("https://kneeboard.example/alerts/#0123456789abcdef");
  });
});

describe("writeAlerts", () => {
  it("writes alerts.json, the global feed and one feed per target, byte-identical on a re-run", async () => {
    const store = new MemoryStore();
    const keys = await writeAlerts(store, [alert()], { now: "2025-02-01T00:00:00.000Z", targetIds: ["t1", "t2"] });
    expect(keys).toEqual([ALERTS_KEY, "feeds/alerts.xml", "feeds/t1.xml", "feeds/t2.xml"]);
    const file = AlertsFile.parse(JSON.parse(store.data.get(ALERTS_KEY) as string));
    expect(file.alerts.map((a) => a.id)).toEqual(["0123456789abcdef"]);
    expect(parse(store.data.get("feeds/t2.xml") as string).entry).toBeUndefined();
    expect(parse(store.data.get("feeds/t1.xml") as string).entry).toHaveLength(1);
    const first = new Map(store.data);
    await writeAlerts(store, [alert()], { now: "2025-02-02T00:00:00.000Z", targetIds: ["t1", "t2"] });
    expect(store.data).toEqual(first);
  });

  it("dates an empty feed by the build time when there is no alert at all, and links itself absolutely under the site URL", async () => {
    const store = new MemoryStore();
    const now = "2025-02-01T00:00:00.000Z";
    await writeAlerts(store, [], { now, targetIds: ["t1"], siteUrl: "https://kneeboard.example/" });
    for (const key of ["feeds/alerts.xml", "feeds/t1.xml"]) {
      const feed = parse(store.data.get(key) as string);
      expect(feed.entry).toBeUndefined();
      expect(feed.updated).toBe(now);
      expect(feed.link?.find((l) => l["@rel"] === "self")?.["@href"]).toBe(`https://kneeboard.example/${key}`);
    }
    // With alerts elsewhere, an empty feed is dated like alerts.json: by their newest update, stable on a re-run.
    await writeAlerts(store, [alert()], { now, targetIds: ["t1", "t2"] });
    expect(parse(store.data.get("feeds/t2.xml") as string).updated).toBe(alert().updatedAt);
    expect(AlertsFile.parse(JSON.parse(store.data.get(ALERTS_KEY) as string)).generatedAt).toBe(alert().updatedAt);
  });

  it("keeps the entry id and changes updated when the state changes, without duplicating the entry", async () => {
    const store = new MemoryStore();
    await writeAlerts(store, [alert()], { now: "2025-02-01T00:00:00.000Z", targetIds: ["t1"] });
    const before = parse(store.data.get("feeds/alerts.xml") as string);
    const resolved = alert({
      state: "resolved",
      resolvedAt: "2025-01-03T00:00:00.000Z",
      updatedAt: "2025-01-03T00:00:00.000Z",
    });
    await writeAlerts(store, [resolved], { now: "2025-02-01T00:00:00.000Z", targetIds: ["t1"] });
    const after = parse(store.data.get("feeds/alerts.xml") as string);
    expect(after.entry?.map((e) => e.id)).toEqual(before.entry?.map((e) => e.id));
    expect(after.entry?.[0]?.updated).toBe("2025-01-03T00:00:00.000Z");
    expect(after.entry?.[0]?.updated).not.toBe(before.entry?.[0]?.updated);
    expect(after.updated).toBe("2025-01-03T00:00:00.000Z");
    expect(after.entry?.[0]?.summary["#text"]).toContain("State: resolved");
  });
});
