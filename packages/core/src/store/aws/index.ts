/** @module The AWS store: S3 for documents, one DynamoDB table for the index, claims, ledger and limits. */
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
