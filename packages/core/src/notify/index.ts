/** @module Alert delivery: SNS with filterable attributes, Slack-compatible webhooks. */
export {
  type Channel,
  type ChannelReport,
  type DeliveryReport,
  deliver,
  notifies,
  snsChannel,
  WebhookError,
  webhookChannel,
} from "./deliver.ts";
export { alertLines, formatChange } from "./format.ts";
export {
  alertAttributes,
  alertSubject,
  publishAlert,
  subscriptionAttributes,
  subscriptionFilterPolicy,
} from "./sns.ts";
export {
  postWebhook,
  redactUrl,
  type SlackMessage,
  slackMessage,
  type WebhookOptions,
  type WebhookResult,
} from "./webhook.ts";
