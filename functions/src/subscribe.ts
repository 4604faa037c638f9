/** @module `subscribe`, the function URL behind the alerts page's form: the subscribe module does the work. */
import { handleSubscribe } from "@kneeboard/core/subscribe";
import { subscribeDeps } from "./lib/deps.ts";

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
    { ...subscribeDeps(), nowMs: Date.now() },
  );
}
