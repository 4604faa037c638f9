/**
 * @module Alerts on SNS: the alert channel (notify's `Channel` port) publishes each alert to a topic
 * with the message attributes that subscription filter policies select on (docs/methodology.md:
 * `targetId`, `metric`, `severity`); the subscriptions port of the subscribe endpoint subscribes an
 * email address to the topic with a filter policy on `targetId`.
 */
import { type MessageAttributeValue, PublishCommand, SNSClient, SubscribeCommand } from "@aws-sdk/client-sns";
import type { Alert } from "../alerts/index.ts";
import type { Channel } from "../notify/deliver.ts";
import { alertLines, alertStatus } from "../notify/format.ts";
import { type AlertSubscriptions, AlreadySubscribedError } from "../subscribe/index.ts";

/** SNS wants subjects shorter than 100 characters, printable ASCII, without line breaks. */
export const SUBJECT_MAX_CHARS = 99;

/** `[kneeboard] Regression open: <title>` (with the label if the title lacks it), cut to fit SNS's subject rules. */
export function alertSubject(alert: Alert): string {
  // Titles usually lead with the label already; say it once.
  const about = alert.title.startsWith(alert.label) ? alert.title : `${alert.label}: ${alert.title}`;
  const raw = `[kneeboard] ${alertStatus(alert)}: ${about}`;
  // Arrows and dashes become ASCII; anything else outside printable ASCII is dropped.
  const ascii = raw
    .replace(/→/g, "->")
    .replace(/[–—−]/g, "-")
    .replace(/[^\x20-\x7E]+/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return ascii.length <= SUBJECT_MAX_CHARS ? ascii : `${ascii.slice(0, SUBJECT_MAX_CHARS - 3).trimEnd()}...`;
}

/**
 * The attributes a filter policy can match: `targetId`, `metric` (the first metric, `route` for
 * a route change, `model` for a model change, the measures found lower for a tool-call regression,
 * `everyMeasure` first, or `toolSupport` when the route began to refuse tools), `metrics`
 * (String.Array of all), `severity`, `kind` and `state`.
 */
export function alertAttributes(alert: Alert): Record<string, MessageAttributeValue> {
  const metrics =
    alert.kind === "model_change"
      ? ["model"]
      : alert.kind === "tool_calls_regression"
        ? toolCallsMetrics(alert)
        : alert.kind === "route_change" || alert.metrics.length === 0
          ? ["route"]
          : alert.metrics;
  const text = (value: string): MessageAttributeValue => ({ DataType: "String", StringValue: value });
  return {
    targetId: text(alert.targetId),
    metric: text(metrics[0] ?? "route"),
    metrics: { DataType: "String.Array", StringValue: JSON.stringify(metrics) },
    severity: text(alert.severity),
    kind: text(alert.kind),
    state: text(alert.state),
  };
}

/** Publishes one alert: subject and plain-text body for mail, attributes for filter policies. */
export async function publishAlert(
  client: SNSClient,
  topicArn: string,
  alert: Alert,
  options: { link?: string } = {},
): Promise<void> {
  await client.send(
    new PublishCommand({
      TopicArn: topicArn,
      Subject: alertSubject(alert),
      Message: alertLines(alert, options.link).join("\n"),
      MessageAttributes: alertAttributes(alert),
    }),
  );
}

/** A filter policy that passes only alerts of these targets (scope: MessageAttributes). */
export function subscriptionFilterPolicy(targetIds: string[]): { targetId: string[] } {
  return { targetId: [...targetIds] };
}

/** The Subscribe `Attributes` for that policy: FilterPolicy as a JSON string, and its scope. */
export function subscriptionAttributes(targetIds: string[]): Record<string, string> {
  return {
    FilterPolicy: JSON.stringify(subscriptionFilterPolicy(targetIds)),
    FilterPolicyScope: "MessageAttributes",
  };
}

export interface SnsChannelOptions {
  topicArn: string;
  /** Defaults to a client from the environment (region, credentials, `AWS_ENDPOINT_URL_SNS`). */
  client?: SNSClient;
  /** The ledger's channel key; default `sns`. */
  name?: string;
  /** A page linked at the end of each mail. */
  link?: string;
}

/** The alert channel on an SNS topic (name `sns`): one publish per alert. */
export class SnsChannel implements Channel {
  private readonly client: SNSClient;
  readonly name: string;
  readonly topicArn: string;
  private readonly link: string | undefined;

  constructor(options: SnsChannelOptions) {
    this.client = options.client ?? new SNSClient({});
    this.name = options.name ?? "sns";
    this.topicArn = options.topicArn;
    this.link = options.link;
  }

  send(alert: Alert): Promise<void> {
    return publishAlert(this.client, this.topicArn, alert, { link: this.link });
  }
}

export interface SnsSubscriptionsOptions {
  topicArn: string;
  /** Defaults to a client from the environment (region, credentials, `AWS_ENDPOINT_URL_SNS`). */
  client?: SNSClient;
}

/** Email subscriptions to an SNS topic, filtered to the chosen targets; SNS mails the confirmation. */
export class SnsSubscriptions implements AlertSubscriptions {
  private readonly client: SNSClient;
  readonly topicArn: string;

  constructor(options: SnsSubscriptionsOptions) {
    this.client = options.client ?? new SNSClient({});
    this.topicArn = options.topicArn;
  }

  async subscribe(email: string, targetIds: string[]): Promise<void> {
    try {
      await this.client.send(
        new SubscribeCommand({
          TopicArn: this.topicArn,
          Protocol: "email",
          Endpoint: email,
          Attributes: subscriptionAttributes(targetIds),
          ReturnSubscriptionArn: true,
        }),
      );
    } catch (error) {
      // SNS refuses a second subscription of one address with other attributes.
      if (
        error instanceof Error &&
        error.name === "InvalidParameterException" &&
        /already exists/i.test(error.message)
      ) {
        throw new AlreadySubscribedError(`${this.topicArn} already has this address with other targets`, {
          cause: error,
        });
      }
      throw error;
    }
  }
}

/** A tool-call regression's measures as SNS metrics: those found lower, or `toolSupport` when the route refuses tools. */
function toolCallsMetrics(alert: Alert): string[] {
  const measures = alert.toolCalls?.measures.map((m) => m.measure) ?? [];
  return measures.length > 0 ? measures : ["toolSupport"];
}
