/** @module `subscribe`, the function URL behind the alerts page's form: the subscribe module does the work. */
import { SNSClient } from "@aws-sdk/client-sns";
import { DynamoRateLimiter } from "@kneeboard/core/aws";
import { handleSubscribe } from "@kneeboard/core/subscribe";
import { deployedConfig, link } from "./lib/deps.ts";

const sns = new SNSClient({});

export async function handler(event: {
  requestContext?: { http?: { method?: string; sourceIp?: string } };
  headers?: Record<string, string | undefined>;
  body?: string | null;
  isBase64Encoded?: boolean;
}) {
  return handleSubscribe(
    {
      method: event.requestContext?.http?.method ?? "GET",
      body: event.body ?? null,
      isBase64Encoded: event.isBase64Encoded,
      contentType: event.headers?.["content-type"],
      sourceIp: event.requestContext?.http?.sourceIp,
    },
    {
      sns,
      topicArn: link("Alerts").arn as string,
      knownTargetIds: deployedConfig().targets.map((t) => t.id),
      limiter: new DynamoRateLimiter({ tableName: link("Table").name as string }),
      nowMs: Date.now(),
    },
  );
}
