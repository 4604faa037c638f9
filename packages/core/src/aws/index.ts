/** @module The AWS adapters of every port: S3 for the Store, one DynamoDB table for the run index, claims, alert ledger and rate limits. */
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
