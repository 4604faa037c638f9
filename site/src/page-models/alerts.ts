/** @module The page model of `/alerts/`: every alert, open first then newest first, with its subject linked, and the subscribe form's targets. */
import type { Alert } from "@kneeboard/core/alerts";
import { toolCallLines } from "@kneeboard/core/notify";
import { alertSubject, siteTargets } from "../lib/alerts.ts";
import { alertsDescription } from "../lib/share.ts";
import type { SiteIndex } from "../lib/site-index.ts";

export interface AlertsPage {
  description: string;
  alerts: (Omit<Alert, "changes"> & {
    subject: { text: string; href: string | null };
    /** Each change with the decimals its metric is shown with. */
    changes: (Alert["changes"][number] & { digits: number })[];
    /** A tool-call regression: its cause, then each measure found lower with its prompts against the reference's (older alerts: each fallen share from its standing interval). */
    toolCallLines: string[];
    /** The kind in words (`tool calls regression`). */
    kindWords: string;
  })[];
  /** Alerts, feeds and subscriptions are per target id, over every scenario it ran. */
  targets: { id: string; label: string }[];
  /** Where the subscribe form posts; null disables it (no deployed endpoint). */
  subscribeUrl: string | null;
}

const ORDER = { open: 0, resolved: 1 } as const;

/** Decimals of a metric's figures: rates 3, tok/s and req/s 1, ms 0. */
const digitsOf = (metric: string) =>
  metric.includes("Rate") ? 3 : metric.includes("TokensPerSecond") || metric.includes("RequestsPerSecond") ? 1 : 0;

export function alertsPage(index: SiteIndex): AlertsPage {
  const alerts = [...index.alerts].sort(
    (a, b) => ORDER[a.state] - ORDER[b.state] || b.updatedAt.localeCompare(a.updatedAt),
  );
  return {
    description: alertsDescription(index.alerts),
    alerts: alerts.map((a) => ({
      ...a,
      subject: alertSubject(a, index.series, index.scenarios),
      changes: a.changes.map((c) => ({ ...c, digits: digitsOf(c.metric) })),
      toolCallLines: a.toolCalls ? toolCallLines(a.toolCalls) : [],
      kindWords: a.kind.replaceAll("_", " "),
    })),
    targets: siteTargets(index.series, index.scenarios),
    subscribeUrl: index.subscribeUrl,
  };
}
