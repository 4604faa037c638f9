/**
 * @module What a function may do on AWS, read from `sst.config.ts` (its links and `permissions`), and
 * what each AWS SDK command it sends needs (IAM action and resource), so a test can hold the calls of
 * a local end-to-end run against the grants. The link grants are SST's (sst 4.17.1, each component's
 * `getSSTLink`): Bucket `s3:*` on the bucket and its objects, Dynamo `dynamodb:*` on the table and
 * `table/*` (its indexes), Queue `sqs:*` and SnsTopic `sns:*` on their ARN, Function
 * `lambda:InvokeFunction`, Secret nothing (its value travels in the environment).
 */
import type { LoadedSstConfig, Recorded } from "./sst.ts";

export interface Grant {
  actions: string[];
  /** ARNs, `*` matching any run of characters, as IAM does. */
  resources: string[];
}

/** One permission an SDK call needs. */
export interface Need {
  action: string;
  resource: string;
}

/** Where the local run's resources live, to turn names and URLs into ARNs. */
export interface ArnContext {
  region: string;
  account: string;
}

const linkGrants: Record<string, (name: string) => Grant[]> = {
  "sst.aws.Bucket": (n) => [{ actions: ["s3:*"], resources: [`${n}.arn`, `${n}.arn/*`] }],
  "sst.aws.Dynamo": (n) => [{ actions: ["dynamodb:*"], resources: [`${n}.arn`, `${n}.arn/*`] }],
  "sst.aws.Queue": (n) => [{ actions: ["sqs:*"], resources: [`${n}.arn`] }],
  "sst.aws.SnsTopic": (n) => [{ actions: ["sns:*"], resources: [`${n}.arn`] }],
  "sst.aws.Function": (n) => [{ actions: ["lambda:InvokeFunction"], resources: [`${n}.arn`] }],
  "sst.Secret": () => [],
};

/**
 * A function's grants with the stand-ins' output paths (`Results.arn`, `Site.nodes.assets.arn/*`)
 * replaced by the ARNs of `arns` (longest path first).
 */
export function grantsOf(fn: Record<string, unknown>, arns: Record<string, string>): Grant[] {
  const links = ((fn.link ?? []) as { __record: Recorded }[]).map((l) => l.__record);
  const grants = [
    ...links.flatMap((r) => {
      const of = linkGrants[r.type];
      if (!of) throw new Error(`no link grants known for ${r.type} ${r.name}`);
      return of(r.name);
    }),
    ...((fn.permissions ?? []) as { actions: string[]; resources: unknown[] }[]).map((p) => ({
      actions: p.actions,
      resources: p.resources.map(String),
    })),
  ];
  const paths = Object.keys(arns).sort((a, b) => b.length - a.length);
  const resolve = (text: string) => paths.reduce((t, p) => t.split(p).join(arns[p] as string), text);
  return grants.map((g) => ({ actions: g.actions, resources: g.resources.map(resolve) }));
}

/** IAM's wildcard match: `*` any run of characters, `?` one; actions ignore case. */
function matches(pattern: string, value: string, ignoreCase = false): boolean {
  const source = pattern
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  return new RegExp(`^${source}$`, ignoreCase ? "i" : "").test(value);
}

export function allows(grants: Grant[], need: Need): boolean {
  return grants.some(
    (g) => g.actions.some((a) => matches(a, need.action, true)) && g.resources.some((r) => matches(r, need.resource)),
  );
}

const s3Object = (input: Record<string, unknown>, key: unknown) => `arn:aws:s3:::${input.Bucket}/${key}`;
const table = (name: unknown, c: ArnContext) => `arn:aws:dynamodb:${c.region}:${c.account}:table/${name}`;
/** An SQS queue URL (`https://sqs.<region>.amazonaws.com/<account>/<name>`, or fauxqs's) as its ARN. */
const queueArn = (url: unknown, c: ArnContext) => {
  const [account, name] = new URL(String(url)).pathname.split("/").filter(Boolean).slice(-2);
  return `arn:aws:sqs:${c.region}:${account ?? c.account}:${name}`;
};

/**
 * The IAM permissions one SDK command needs, from its class name and input (Service Authorization
 * Reference): S3 object calls on the object's ARN, ListObjectsV2 `s3:ListBucket` on the bucket's;
 * DynamoDB calls on the table, a Query or Scan of an index on `table/<t>/index/<i>`; SQS sends as
 * `sqs:SendMessage`. A command not listed throws, so a new call must be mapped before it passes.
 */
export function needsOf(command: string, input: Record<string, unknown>, c: ArnContext): Need[] {
  const name = command.replace(/Command$/, "");
  switch (name) {
    case "GetObject":
    case "HeadObject":
      return [{ action: "s3:GetObject", resource: s3Object(input, input.Key) }];
    case "PutObject":
      return [{ action: "s3:PutObject", resource: s3Object(input, input.Key) }];
    case "CopyObject":
      // Reads the source (`<bucket>/<url-encoded key>`), writes the destination.
      return [
        { action: "s3:GetObject", resource: `arn:aws:s3:::${decodeURIComponent(String(input.CopySource))}` },
        { action: "s3:PutObject", resource: s3Object(input, input.Key) },
      ];
    case "DeleteObject":
      return [{ action: "s3:DeleteObject", resource: s3Object(input, input.Key) }];
    case "DeleteObjects":
      return ((input.Delete as { Objects?: { Key: string }[] }).Objects ?? []).map((o) => ({
        action: "s3:DeleteObject",
        resource: s3Object(input, o.Key),
      }));
    case "ListObjectsV2":
    case "ListObjects":
      return [{ action: "s3:ListBucket", resource: `arn:aws:s3:::${input.Bucket}` }];
    case "Get":
    case "GetItem":
    case "Put":
    case "PutItem":
    case "Update":
    case "UpdateItem":
    case "Delete":
    case "DeleteItem": {
      const verb = name.replace(/Item$/, "");
      return [{ action: `dynamodb:${verb}Item`, resource: table(input.TableName, c) }];
    }
    case "Query":
    case "Scan":
      return [
        {
          action: `dynamodb:${name}`,
          resource: `${table(input.TableName, c)}${input.IndexName ? `/index/${input.IndexName}` : ""}`,
        },
      ];
    case "BatchWrite":
    case "BatchWriteItem":
    case "BatchGet":
    case "BatchGetItem":
      return Object.keys(input.RequestItems as object).map((t) => ({
        action: `dynamodb:${name.replace(/Item$/, "")}Item`,
        resource: table(t, c),
      }));
    case "SendMessage":
    case "SendMessageBatch":
      return [{ action: "sqs:SendMessage", resource: queueArn(input.QueueUrl, c) }];
    case "ReceiveMessage":
    case "DeleteMessage":
    case "DeleteMessageBatch":
    case "ChangeMessageVisibility":
      return [{ action: `sqs:${name.replace(/Batch$/, "")}`, resource: queueArn(input.QueueUrl, c) }];
    case "Publish":
    case "Subscribe":
    case "ListSubscriptionsByTopic":
      return [{ action: `sns:${name}`, resource: String(input.TopicArn) }];
    case "CreateInvalidation":
      return [
        {
          action: "cloudfront:CreateInvalidation",
          resource: `arn:aws:cloudfront::${c.account}:distribution/${input.DistributionId}`,
        },
      ];
    default:
      throw new Error(`no IAM mapping for ${command}: add it to functions/testing/grants.ts`);
  }
}

/** Each function of the config by the name its calls are recorded under (the component that holds it). */
export function functionsByName(config: LoadedSstConfig): Map<string, Record<string, unknown>> {
  return new Map(config.functions().map((f) => [f.name, f.fn]));
}
