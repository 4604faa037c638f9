/**
 * @module Atom feeds of alerts (RFC 4287) and the store keys delivery writes: `alerts.json`,
 * `feeds/alerts.xml` and `feeds/<targetId>.xml`. Every text is XML-escaped: labels are user input.
 */
import { ALERTS_KEY, type Alert, type AlertsFile } from "../alerts/index.ts";
import type { Store } from "../store/index.ts";

/** Escapes text for XML element content and attribute values. */
export function escapeXml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}

/** The link to an alert on the site: `<siteUrl>/alerts/#<id>`, or relative to `/feeds/` when no site URL is known. */
export function alertHref(alert: Alert, siteUrl?: string): string {
  const base = siteUrl ? `${siteUrl.replace(/\/+$/, "")}/alerts/` : "../alerts/";
  return `${base}#${encodeURIComponent(alert.id)}`;
}

function figure(value: number): string {
  return Math.abs(value) >= 100 ? value.toFixed(0) : value.toPrecision(3);
}

/** The plain-text body of an entry: state, each metric's before and after with spread, the runs. */
export function alertText(alert: Alert): string {
  const lines = [
    alert.title,
    `State: ${alert.state}${alert.resolvedAt ? ` (resolved ${alert.resolvedAt})` : ""}. Kind: ${alert.kind}. Severity: ${alert.severity}.`,
    `Target: ${alert.targetId}${alert.scenario === "chat" ? "" : `, scenario ${alert.scenario}`}. Changed at ${alert.changedAt}, opened ${alert.openedAt}.`,
  ];
  for (const c of alert.changes) {
    const pct =
      c.relativeChange === null ? "" : ` (${c.relativeChange >= 0 ? "+" : ""}${(c.relativeChange * 100).toFixed(1)} %)`;
    lines.push(
      `${c.metric}: before ${figure(c.before.median)} ± ${figure(c.before.spread)} (median ± MAD of ${c.before.runs} runs), after ${figure(c.after.median)} ± ${figure(c.after.spread)} (${c.after.runs} runs)${pct}`,
    );
  }
  if (alert.toolCalls?.cause)
    lines.push(
      `Cause: ${alert.toolCalls.cause}${alert.toolCalls.reference ? `, against the reference ${alert.toolCalls.reference}` : ""}${alert.toolCalls.reason ? `: ${alert.toolCalls.reason}` : ""}`,
    );
  for (const m of alert.toolCalls?.measures ?? []) {
    lines.push(
      "before" in m
        ? `${m.measure}: before ${figure(m.before.median)} (${figure(m.before.low)}-${figure(m.before.high)}, median and interval of ${m.before.n} runs), after ${figure(m.after.share)} (${m.after.successes} of ${m.after.trials}, Wilson 95 % ${figure(m.after.low)}-${figure(m.after.high)})`
        : `${m.measure}: ${m.route} of ${m.prompts} prompts met, the reference ${m.reference} (${m.lost} lost, ${m.gained} gained; exact sign test, Holm-adjusted p ${figure(m.pValue)})`,
    );
  }
  if (alert.served)
    lines.push(
      `Served by: before ${alert.served.before.join(", ") || "-"}; after ${alert.served.after.join(", ") || "-"}`,
    );
  lines.push(`Runs: ${alert.runIds.join(", ")}`);
  return lines.join("\n");
}

export interface AtomFeedOptions {
  /** The feed's permanent id (an IRI), e.g. `urn:kneeboard:feed:alerts`. */
  id: string;
  title: string;
  alerts: Alert[];
  /** The feed's `updated`; pass `feedUpdated(alerts, whenEmpty)` for byte-stable output. */
  updated: string;
  /** URL of the feed itself (`rel="self"`): absolute when the site's URL is known, as Atom readers expect. */
  selfHref?: string;
  /** The page the feed mirrors (`rel="alternate"`). */
  alternateHref?: string;
  /** Base of the site for entry links; without it links are relative to `/feeds/`. */
  siteUrl?: string;
}

/** The newest `updatedAt` of the alerts, or `whenEmpty` (ISO 8601) when there is none. */
export function feedUpdated(alerts: readonly Alert[], whenEmpty: string): string {
  return (
    alerts
      .map((a) => a.updatedAt)
      .sort()
      .at(-1) ?? whenEmpty
  );
}

/** An Atom 1.0 document, entries newest `updated` first; the entry id is `urn:kneeboard:alert:<alert.id>`. */
export function atomFeed(options: AtomFeedOptions): string {
  const x = escapeXml;
  const entries = [...options.alerts]
    .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || a.id.localeCompare(b.id))
    .map((a) =>
      [
        "  <entry>",
        `    <id>urn:kneeboard:alert:${x(a.id)}</id>`,
        `    <title type="text">${x(`[${a.state}] ${a.title}`)}</title>`,
        `    <updated>${x(a.updatedAt)}</updated>`,
        `    <published>${x(a.openedAt)}</published>`,
        `    <link rel="alternate" type="text/html" href="${x(alertHref(a, options.siteUrl))}"/>`,
        `    <category term="${x(a.kind)}"/>`,
        `    <category term="${x(a.severity)}"/>`,
        `    <summary type="text">${x(alertText(a))}</summary>`,
        "  </entry>",
      ].join("\n"),
    );
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom">',
    `  <id>${x(options.id)}</id>`,
    `  <title type="text">${x(options.title)}</title>`,
    `  <updated>${x(options.updated)}</updated>`,
    "  <author><name>kneeboard</name></author>",
    "  <generator>kneeboard</generator>",
    ...(options.selfHref ? [`  <link rel="self" type="application/atom+xml" href="${x(options.selfHref)}"/>`] : []),
    ...(options.alternateHref ? [`  <link rel="alternate" type="text/html" href="${x(options.alternateHref)}"/>`] : []),
    ...entries,
    "</feed>",
    "",
  ].join("\n");
}

/** The store key of a target's feed. */
export function targetFeedKey(targetId: string): string {
  return `feeds/${targetId}.xml`;
}

export const ALL_ALERTS_FEED_KEY = "feeds/alerts.xml";

/**
 * Writes `alerts.json`, `feeds/alerts.xml` (every alert, improvements included: the feed is the
 * record of changes; notifying only regressions is delivery's choice) and one feed per target id
 * (empty for a target without alerts, so its link never 404s). Nothing but the alerts decides the
 * bytes: re-running with nothing new writes identical files. `generatedAt`, and a feed's `updated`,
 * are the newest update of its alerts; an empty feed's is `generatedAt`, which is `now` (the build
 * time) when there is no alert at all. With `siteUrl`, each feed's `self` link is absolute.
 * Returns the keys written.
 */
export async function writeAlerts(
  store: Store,
  alerts: Alert[],
  options: { now: string; targetIds: string[]; siteUrl?: string },
): Promise<string[]> {
  const generatedAt = feedUpdated(alerts, options.now);
  const file: AlertsFile = { schemaVersion: 1, generatedAt, alerts };
  const written: string[] = [];
  const put = async (key: string, body: string, contentType: string) => {
    await store.put(key, body, { contentType });
    written.push(key);
  };
  await put(ALERTS_KEY, `${JSON.stringify(file, null, 1)}\n`, "application/json");
  const site = options.siteUrl?.replace(/\/+$/, "");
  const feed = (key: string, id: string, title: string, subset: Alert[]) =>
    put(
      key,
      atomFeed({
        id,
        title,
        alerts: subset,
        updated: feedUpdated(subset, generatedAt),
        selfHref: site ? `${site}/${key}` : key.slice("feeds/".length),
        alternateHref: site ? `${site}/alerts/` : "../alerts/",
        siteUrl: options.siteUrl,
      }),
      "application/atom+xml",
    );
  await feed(ALL_ALERTS_FEED_KEY, "urn:kneeboard:feed:alerts", "kneeboard alerts", alerts);
  const targets = [...new Set([...options.targetIds, ...alerts.map((a) => a.targetId)])].sort();
  for (const targetId of targets) {
    const own = alerts.filter((a) => a.targetId === targetId);
    await feed(targetFeedKey(targetId), `urn:kneeboard:feed:target:${targetId}`, `kneeboard alerts: ${targetId}`, own);
  }
  return written;
}
