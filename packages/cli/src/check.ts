/** @module `kneeboard check`: evaluate the folder store for regressions, write alerts.json and the Atom feeds, print a summary. */
import { existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { UsageError } from "@kneeboard/core/errors";
import { StoreAlertLedger } from "@kneeboard/core/ledger/store";
import { deliver, toolCallLines, webhookChannel } from "@kneeboard/core/notify";
import { seriesHistory } from "@kneeboard/core/regress";
import { evaluateStore } from "@kneeboard/core/regress/check";
import { StoreRunIndex } from "@kneeboard/core/run-index/store";
import { FolderStore } from "@kneeboard/core/store/folder";
import { HISTORY_NEEDED } from "./commands.ts";
import { lowerLines, sharesLine, verdictLine } from "./tool-calls.ts";

/** What marks a folder as a store: a run (`kneeboard run` writes `runs/`) or a check before (`alerts.json`). */
const STORE_MARKS = ["runs", "alerts.json"];

/**
 * Throws a UsageError (exit 2), before anything is written, when dataDir is not a store: missing, a
 * file, or a folder with none of `STORE_MARKS` (a typo would otherwise become an empty store).
 */
export function checkStoreFolder(dataDir: string): void {
  const path = resolve(dataDir);
  let isFolder: boolean;
  try {
    isFolder = statSync(path).isDirectory();
  } catch {
    throw new UsageError(`--data ${dataDir} does not exist: give the store folder \`kneeboard run\` wrote to`);
  }
  if (!isFolder) throw new UsageError(`--data ${dataDir} is a file, not a store folder`);
  if (!STORE_MARKS.some((mark) => existsSync(join(path, mark))))
    throw new UsageError(
      `--data ${dataDir} is not a store: it holds neither runs/ nor alerts.json (\`kneeboard run\` makes one)`,
    );
}

/** The store's (target, scenario)s against HISTORY_NEEDED: how many have too few runs yet, and which. */
function historyText(entries: Parameters<typeof seriesHistory>[0]): string {
  const series = seriesHistory(entries);
  const short = series.filter((s) => s.missing > 0);
  const named = short
    .slice(0, 5)
    .map((s) => `${s.key}: ${s.judgedRuns}`)
    .join(", ");
  return short.length === 0
    ? `history: ${HISTORY_NEEDED}; all ${series.length} have that many`
    : `history: ${HISTORY_NEEDED}; ${short.length} of ${series.length} have fewer, not judged yet (${named}${short.length > 5 ? ", ..." : ""}): \`kneeboard run --repeat K\` adds runs`;
}

/** Evaluates the store at dataDir; exit code 0 (alerts are findings, not failures); a UsageError when it is no store. */
export async function check(options: {
  dataDir: string;
  io: { out: NodeJS.WritableStream; err: NodeJS.WritableStream };
  /** ISO 8601 UTC; defaults to the clock. */
  now?: string;
  siteUrl?: string;
  /** A Slack-compatible webhook to notify (secret: read from KNEEBOARD_WEBHOOK_URL, never printed). */
  webhookUrl?: string;
}): Promise<number> {
  checkStoreFolder(options.dataDir);
  const store = new FolderStore(options.dataDir);
  const index = new StoreRunIndex(store);
  const result = await evaluateStore({
    store,
    index,
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
  out.write(`${historyText(await index.entries())}\n`);
  for (const a of result.changed) {
    out.write(`  [${a.severity}] ${a.state} ${a.kind}: ${a.title}\n`);
    if (a.toolCalls) for (const line of toolCallLines(a.toolCalls)) out.write(`      ${line}\n`);
  }
  if (result.toolCallsJudged.length > 0) {
    out.write(`tool-call verdicts recorded: ${result.toolCallsJudged.length}\n`);
    for (const e of result.toolCallsJudged) {
      const v = e.toolCallsVerdict as NonNullable<typeof e.toolCallsVerdict>;
      out.write(`  ${e.targetId} [${e.scenario}] ${e.runId}: ${verdictLine(v)}\n`);
      for (const line of lowerLines(v)) out.write(`${line}\n`);
      if (e.toolCalls?.support === "supported") out.write(`    shares: ${sharesLine(e.toolCalls.shares)}\n`);
    }
  }
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
