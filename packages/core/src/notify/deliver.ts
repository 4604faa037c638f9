/**
 * @module Delivery of alerts to channels (SNS, webhook), each alert state at most once per channel.
 *
 * For each (alert, state, channel) the ledger is claimed first, then the channel sends. A send that
 * fails releases its claim, so the next run tries again; a send that succeeded stays claimed, so
 * re-runs never repeat it. A process that dies between claim and send loses that one message: we
 * prefer a missed mail to a duplicate, and the Atom feeds still carry the alert.
 */
import type { Alert } from "../alerts/index.ts";
import { KneeboardError } from "../errors/index.ts";
import type { AlertLedger } from "../ledger/index.ts";
import { postWebhook, type WebhookOptions } from "./webhook.ts";

/** Somewhere alerts go (the SNS one is `SnsChannel`, aws/sns.ts). `send` throws when the alert did not get there. */
export interface Channel {
  /** The ledger's channel key: stable across runs (`sns`, `webhook`). */
  name: string;
  send(alert: Alert): Promise<void>;
}

/** What happened on one channel in one delivery. */
export interface ChannelReport {
  sent: number;
  /** Already delivered by an earlier run (the ledger's claim said no). */
  skipped: number;
  /** Not delivered this time; released, so the next run retries. */
  failed: number;
  /** One line per failure: `<alertId> <state>: <why>`. */
  errors: string[];
}

export interface DeliveryReport {
  /** Alerts that notify (regressions and route changes); improvements are not counted. */
  notifying: number;
  channels: Record<string, ChannelReport>;
}

/** The webhook failed after its retries. */
export class WebhookError extends KneeboardError {
  override name = "WebhookError";
}

/** Every kind but improvements reaches people (regressions, route, model and tool-call changes), when it opens and when it resolves. */
export function notifies(alert: Alert): boolean {
  return alert.kind !== "improvement";
}

/** A channel that posts to a webhook (name `webhook`); throws WebhookError, without the URL, after its retries. */
export function webhookChannel(url: string, options: WebhookOptions & { name?: string } = {}): Channel {
  return {
    name: options.name ?? "webhook",
    async send(alert) {
      const result = await postWebhook(url, alert, options);
      if (!result.ok) throw new WebhookError(`webhook failed after ${result.attempts} attempts: ${result.error}`);
    },
  };
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Delivers one channel's alerts in order, so a slow channel only delays itself. */
async function deliverTo(channel: Channel, alerts: Alert[], ledger: AlertLedger, warn: (m: string) => void) {
  const report: ChannelReport = { sent: 0, skipped: 0, failed: 0, errors: [] };
  const fail = (alert: Alert, why: string) => {
    report.failed++;
    report.errors.push(`${alert.id} ${alert.state}: ${why}`);
    warn(`${channel.name}: alert ${alert.id} (${alert.state}) not delivered: ${why}`);
  };
  for (const alert of alerts) {
    let claimed: boolean;
    try {
      claimed = await ledger.claim(alert.id, alert.state, channel.name);
    } catch (error) {
      fail(alert, `ledger claim failed: ${message(error)}`);
      continue;
    }
    if (!claimed) {
      report.skipped++;
      continue;
    }
    try {
      await channel.send(alert);
      report.sent++;
    } catch (error) {
      try {
        await ledger.release(alert.id, alert.state, channel.name);
        fail(alert, message(error));
      } catch (releaseError) {
        // The claim stays, so this one is not retried; say so rather than hide it.
        fail(alert, `${message(error)}; release failed, not retried: ${message(releaseError)}`);
      }
    }
  }
  return report;
}

/**
 * Sends each notifying alert's current state to every channel, once. Channels run side by side
 * (one worker each, a fixed and small number); one failing never stops the others. Failures are
 * reported, not thrown; only bad configuration (two channels with one name) throws.
 */
export async function deliver(
  alerts: Alert[],
  options: { ledger: AlertLedger; channels: Channel[]; warn?: (m: string) => void },
): Promise<DeliveryReport> {
  const warn = options.warn ?? (() => {});
  const notifying = alerts.filter(notifies);
  const names = new Set<string>();
  for (const channel of options.channels) {
    if (names.has(channel.name)) throw new KneeboardError(`two delivery channels are named ${channel.name}`);
    names.add(channel.name);
  }
  const reports = await Promise.all(options.channels.map((c) => deliverTo(c, notifying, options.ledger, warn)));
  const channels: Record<string, ChannelReport> = {};
  options.channels.forEach((c, i) => {
    const report = reports[i];
    if (report) channels[c.name] = report;
  });
  return { notifying: notifying.length, channels };
}
