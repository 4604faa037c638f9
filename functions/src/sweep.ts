/** @module `sweep`: one queue message, one target, within Lambda's deadline; claimed first so a duplicate does nothing. */
import { randomUUID } from "node:crypto";
import { SendMessageCommand, SQSClient } from "@aws-sdk/client-sqs";
import { slotRunId } from "@kneeboard/core/claims";
import { workloadFor } from "@kneeboard/core/config";
import { saveRun } from "@kneeboard/core/run-index";
import { runSweep } from "@kneeboard/core/sweep";
import { apiKeyFor, deployedConfig, link, stores } from "./lib/deps.ts";
import type { SweepMessage } from "./plan.ts";

/** Stop this long before Lambda's end, so the finished levels are saved. */
const DEADLINE_MARGIN_MS = 30_000;
const sqs = new SQSClient({});

export async function handler(
  event: { Records: { body: string }[] },
  context: { getRemainingTimeInMillis(): number },
): Promise<{ runs: string[] }> {
  const config = deployedConfig();
  const { store, index, claims } = stores();
  const owner = randomUUID();
  const runs: string[] = [];
  for (const record of event.Records) {
    const message = JSON.parse(record.body) as SweepMessage;
    const target = config.targets.find((t) => t.id === message.targetId);
    if (!target) continue;
    const runId = slotRunId(target.id, message.slot);
    const lease = context.getRemainingTimeInMillis();
    if ((await claims.claim(runId, { targetId: target.id, owner, nowMs: Date.now(), ttlMs: lease })) !== "claimed")
      continue;
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(), Math.max(0, context.getRemainingTimeInMillis() - DEADLINE_MARGIN_MS));
    try {
      const doc = await runSweep({
        target,
        workload: workloadFor(config, target),
        apiKey: apiKeyFor(target.apiKeyEnv),
        runId,
        signal: stop.signal,
      });
      // The document is written before the index lists it: no reader sees a half-run.
      await saveRun(store, index, doc);
      await claims.complete(runId, owner);
      runs.push(runId);
    } finally {
      clearTimeout(timer);
    }
  }
  if (runs.length > 0) {
    await sqs.send(
      new SendMessageCommand({ QueueUrl: link("PublishQueue").url as string, MessageBody: JSON.stringify({ runs }) }),
    );
  }
  return { runs };
}
