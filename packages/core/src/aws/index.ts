/**
 * @module The AWS adapters of every port: S3 for the Store, one DynamoDB table for the run index, claims, alert ledger and
 * rate limits, SQS, S3 and CloudFront for the scheduled path, SNS for alerts and subscriptions.
 */

export { CloudFrontCdn, type CloudFrontCdnOptions } from "./cloudfront.ts";
export {
  DynamoAlertLedger,
  type DynamoOptions,
  DynamoRateLimiter,
  DynamoRebuildLedger,
  DynamoRunClaims,
  DynamoRunIndex,
  type TableDefinition,
  tableDefinition,
} from "./dynamo.ts";
export { S3Store, type S3StoreOptions } from "./s3.ts";
export { type S3BucketOptions, S3PendingRuns, S3SiteBucket } from "./site-bucket.ts";
export {
  alertAttributes,
  alertSubject,
  publishAlert,
  SnsChannel,
  type SnsChannelOptions,
  SnsSubscriptions,
  type SnsSubscriptionsOptions,
  subscriptionAttributes,
  subscriptionFilterPolicy,
} from "./sns.ts";
export { SqsQueue, type SqsQueueOptions } from "./sqs.ts";
