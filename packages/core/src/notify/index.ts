/** @module Alert delivery to channels: Slack-compatible webhooks here, SNS with filterable attributes in aws/sns.ts. */
export {
  type Channel,
  type ChannelReport,
  type DeliveryReport,
  deliver,
  notifies,
  WebhookError,
  webhookChannel,
} from "./deliver.ts";
export { alertLines, formatChange, toolCallLines } from "./format.ts";
export {
  postWebhook,
  redactUrl,
  type SlackMessage,
  slackMessage,
  type WebhookOptions,
  type WebhookResult,
} from "./webhook.ts";
