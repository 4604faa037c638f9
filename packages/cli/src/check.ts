/** @module `kneeboard check`: evaluate the folder store for regressions, write alerts.json and the Atom feeds, print a summary. */
import { resolve } from "node:path";
import { StoreAlertLedger } from "@kneeboard/core/ledger/store";
import { deliver, webhookChannel } from "@kneeboard/core/notify";
import { evaluateStore } from "@kneeboard/core/regress/check";
import { StoreRunIndex } from "@kneeboard/core/run-index/store";
import { FolderStore } from "@kneeboard/core/store/folder";

/** Evaluates the store at dataDir; exit code 0 (alerts are findings, not failures). */
export async function check(options: {
  dataDir: string;
  io: { out: NodeJS.WritableStream; err: NodeJS.WritableStream };
  /** ISO 8601 UTC; defaults to the clock. */
  now?: string;
  siteUrl?: string;
  /** A Slack-compatible webhook to notify (secret: read from KNEEBOARD_WEBHOOK_URL, never printed). */
  webhookUrl?: string;
}): Promise<number> {
  const store = new FolderStore(options.dataDir);
  const result = await evaluateStore({
    store,
    index: new StoreRunIndex(store),
    now: options.now ?? new Date().toISOString(),
    siteUrl: options.siteUrl,
    warn: (message) => options.io.err.write(`warning: ${message}\n`),
  });
  const count = (pred: (a: (typeof result.alerts)[number]) => boolean) => result.alerts.filter(pred).length;
  const out = options.io.out;
  out.write(
    `alerts: ${count((a) => a.state === "open")} open, ${count((a) => a.kind !== "improvement" && a.state === "resolved")} resolved, ${count((a) => a.kind === "improvement")} improvements\n`,
  );
  out.write(`since the last check: ${result.changed.length} new or changed\n`);
  for (const a of result.changed) out.write(`  [${a.severity}] ${a.state} ${a.kind}: ${a.title}\n`);
  if (options.webhookUrl) {
    const report = await deliver(result.alerts, {
      ledger: new StoreAlertLedger(store),
      channels: [webhookChannel(options.webhookUrl, { name: "webhook" })],
      warn: (message) => options.io.err.write(`warning: ${message}\n`),
    });
    const w = report.channels.webhook;
    if (w) out.write(`webhook: ${w.sent} sent, ${w.skipped} already sent, ${w.failed} failed\n`);
  }
  out.write(`wrote ${result.written.map((k) => resolve(options.dataDir, k)).join("\n      ")}\n`);
  return 0;
}
