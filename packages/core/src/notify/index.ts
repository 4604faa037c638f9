/** @module Alert delivery: SNS with filterable attributes, Slack-compatible webhooks, the ledger, subscribing. */
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
export { DELIVERED_KEY, DeliveredFile, MemoryAlertLedger, MemoryRateLimiter, StoreAlertLedger } from "./ledger.ts";
export {
  isFormPost,
  MAX_BODY_BYTES,
  MAX_TARGETS,
  normalizeEmail,
  readSubscribeBody,
  SubscribeRequest,
  type Subscription,
  validateSubscription,
} from "./request.ts";
export { escapeHtml, type HttpResponse } from "./respond.ts";
export {
  alertAttributes,
  alertSubject,
  publishAlert,
  subscriptionAttributes,
  subscriptionFilterPolicy,
} from "./sns.ts";
export {
  DEFAULT_SUBSCRIBE_LIMITS,
  handleSubscribe,
  type RateLimit,
  type SubscribeDeps,
  type SubscribeHttpRequest,
} from "./subscribe.ts";
export {
  postWebhook,
  redactUrl,
  type SlackMessage,
  slackMessage,
  type WebhookOptions,
  type WebhookResult,
} from "./webhook.ts";
