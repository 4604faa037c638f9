/** @module The AWS store: S3 for documents, one DynamoDB table for the index, claims, ledger and limits. */

export { CloudFrontCdn, type CloudFrontCdnOptions } from "./cloudfront.ts";
export {
  DynamoAlertLedger,
  type DynamoOptions,
  DynamoRateLimiter,
  DynamoRunClaims,
  DynamoRunIndex,
  type TableDefinition,
  tableDefinition,
} from "./dynamo.ts";
export { S3Store, type S3StoreOptions } from "./s3.ts";
export { type S3BucketOptions, S3PendingRuns, S3SiteBucket } from "./site-bucket.ts";
export { SqsQueue, type SqsQueueOptions } from "./sqs.ts";
