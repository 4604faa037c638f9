/**
 * @module Sweeping a slot across invocations, on in-memory ports (queue, pending runs) and the folder
 * store, claims and index, against a small local streaming server. The measuring clock advances
 * 10 s per request the server receives, so where a deadline falls is set by request counts, not by
 * the machine's speed; and the server answers after a real wait, so the client's loop is idle most of
 * each level and a busy machine does not flag it (a run's status here is about its levels' deadlines).
 */
import { mkdtempSync } from "node:fs";
import { rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FolderRunClaims } from "../claims/folder.ts";
import { slotRunId } from "../claims/index.ts";
import { type Config, parseConfig } from "../config/index.ts";
import { loadPosition } from "../run/index.ts";
import { StoreRunIndex } from "../run-index/store.ts";
import { type Scheduler, systemScheduler } from "../scheduler/index.ts";
import { FolderStore } from "../store/folder.ts";
import { listRunKeys, readRun } from "../store/index.ts";
import {
  fanOutSlot,
  MemoryPendingRuns,
  MemoryQueue,
  type QueueRecord,
  type SweepDeps,
  SweepMessage,
  slotSweeps,
  sweepBatch,
} from "./index.ts";

/** Clock ms that pass per request received. */
const STEP_MS = 10_000;
let server: Server;
let baseURL: string;
let received = 0;
let ticks = 0;
/**
 * Monotonic: whole steps per received request, plus a hair per reading. Real timers on a clock of its
 * own: not one a thread can rebuild, so every level runs on this thread. The clock moves only with
 * requests, so a sleep on it has no real length of its own: sleeps (the closed loop's start spread,
 * one expected request, about one step, spread over a level's workers) wait a tenth of their length in
 * real time. At one real ms per clock ms each level of N >= 2 waited 5 to 7.5 s for nothing; much
 * shorter, and the level's few ms of work fill its real time: the client's event loop reads as busy
 * over 90 % of it (client limited), and a run with no valid level is "failed", not "complete".
 */
const SLEEP_SCALE = 10;
/**
 * Real ms the server waits before it answers each request. The client's health is read from the real
 * process, not this clock: a level of N = 1 has no start spread to sleep, and its few ms of work (the
 * client's and this in-process server's) filled its real time, so on a busy machine its event loop
 * read as busy over 90 % of it and the run failed, client limited. Waiting on the server, the loop is
 * idle most of each level however slow the machine runs its work; the clock, moved by requests
 * received, does not see the wait.
 */
const ANSWER_AFTER_MS = 50;
const clock: Scheduler = {
  ...systemScheduler,
  now: () => received * STEP_MS + ticks++ * 1e-6,
  sleep: (ms, signal) => systemScheduler.sleep(ms / SLEEP_SCALE, signal),
  threadable: undefined,
};
const dirs: string[] = [];

/** An OpenAI-style stream of four one-token chunks, then usage. */
function answer(res: import("node:http").ServerResponse): void {
  res.writeHead(200, { "content-type": "text/event-stream" });
  const chunk = (body: object) => res.write(`data: ${JSON.stringify(body)}\n\n`);
  const base = { id: `c${received}`, object: "chat.completion.chunk", created: 0, model: "m" };
  for (let i = 0; i < 4; i++) {
    chunk({ ...base, choices: [{ index: 0, delta: { content: "tok " }, finish_reason: i === 3 ? "length" : null }] });
  }
  chunk({ ...base, choices: [], usage: { prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 } });
  res.end("data: [DONE]\n\n");
}

beforeAll(async () => {
  server = createServer((req, res) => {
    received++;
    req.resume();
    req.on("end", () => setTimeout(() => answer(res), ANSWER_AFTER_MS));
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((ok) => server.close(ok));
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

function configWith(concurrency: number[], scenarios?: Record<string, unknown>): Config {
  return parseConfig(
    JSON.stringify({
      targets: [{ id: "t-a", label: "A", baseURL, model: "m", route: { gateway: "direct" } }],
      // The longest idle timeout: a level's workers may overlap (the spread is shorter than it was), and
      // the steps of the requests the server receives meanwhile would count as a stream's quiet time
      // (the default 30 s is 3 steps).
      // No canary: the clock counts requests, and a canary's would move every deadline (it has tests of its own).
      workload: {
        concurrency,
        requestsPerLevel: 4,
        warmupRequests: 0,
        maxTokens: 4,
        promptTokens: 8,
        streamIdleTimeoutSeconds: 900,
        canary: false,
      },
      ...(scenarios ? { scenarios } : {}),
    }),
  );
}

/** Fresh ports, and a way to make one invocation's dependencies (its own owner and time left). */
function world(concurrency: number[], options: { maxInvocations?: number; scenarios?: Record<string, unknown> } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "kneeboard-schedule-"));
  dirs.push(dir);
  const store = new FolderStore(join(dir, "data"));
  const shared = {
    config: configWith(concurrency, options.scenarios),
    store,
    index: new StoreRunIndex(store),
    claims: new FolderRunClaims(join(dir, "claims")),
    pending: new MemoryPendingRuns(),
    sweepQueue: new MemoryQueue(),
    publishQueue: new MemoryQueue(),
  };
  const lines: string[] = [];
  let invocations = 0;
  const invocation = (remainingMs: number): SweepDeps => ({
    ...shared,
    owner: `invocation-${++invocations}`,
    remainingMs: () => remainingMs,
    marginMs: 0,
    maxInvocations: options.maxInvocations,
    scheduler: clock,
    log: { info: (m) => lines.push(m), warn: (m) => lines.push(`WARN ${m}`) },
  });
  return { ...shared, invocation, lines };
}

const slotRecord = (targetId = "t-a", id = "m-1"): QueueRecord => ({
  messageId: id,
  body: JSON.stringify({ targetId, slot: "2026-12-03T06:00:00Z" }),
});

/** Takes the continuation the last invocation sent, as the queue would deliver it. */
function nextRecord(queue: MemoryQueue, id: string): QueueRecord {
  const [message] = queue.take();
  if (!message) throw new Error("no continuation was sent");
  return { messageId: id, body: message.body };
}

describe("sweepBatch", () => {
  it("sweeps a slot that fits in one invocation, stores it complete and tells publish", async () => {
    const w = world([1, 2]);
    const summary = await sweepBatch([slotRecord()], w.invocation(1_000 * STEP_MS));
    expect(summary).toMatchObject({ continued: [], duplicates: 0, rejected: 0, failed: 0, batchItemFailures: [] });
    expect(summary.runs).toHaveLength(1);
    const [key] = await listRunKeys(w.store);
    const doc = await readRun(w.store, key as string);
    expect(doc.status).toBe("complete");
    expect(doc.levels.map((l) => loadPosition(l.load))).toEqual([1, 2]);
    expect(w.publishQueue.sent.map((m) => JSON.parse(m.body))).toEqual([{ runs: summary.runs, targets: ["t-a"] }]);
    expect(w.sweepQueue.sent).toEqual([]);
  });

  it("continues a sweep past its invocation's deadline and ends complete with every level", async () => {
    const w = world([1, 2, 3, 4]);
    // 9.5 steps per invocation: two levels of four requests fit, the third does not.
    const perInvocation = 9.5 * STEP_MS;
    const first = await sweepBatch([slotRecord()], w.invocation(perInvocation));
    expect(first.runs).toEqual([]);
    expect(first.continued).toHaveLength(1);
    const runId = first.continued[0] as string;
    expect(await listRunKeys(w.store)).toEqual([]);
    const saved = await w.pending.load(runId);
    expect(saved?.levels.map((l) => loadPosition(l.load))).toEqual([1, 2]);
    const [sent] = w.sweepQueue.sent;
    expect(sent).toMatchObject({ groupId: "t-a", deduplicationId: `${runId}-2` });
    const message = SweepMessage.parse(JSON.parse(sent?.body as string));
    expect(message.continuation).toEqual({ runId, levelIndex: 2, invocation: 2, fromOwner: "invocation-1" });

    let summary = first;
    let invocations = 1;
    while (summary.continued.length > 0 && invocations < 10) {
      summary = await sweepBatch([nextRecord(w.sweepQueue, `m-${++invocations}`)], w.invocation(perInvocation));
    }
    expect(invocations).toBeGreaterThanOrEqual(2);
    expect(summary.runs).toEqual([runId]);
    const keys = await listRunKeys(w.store);
    expect(keys).toHaveLength(1);
    const doc = await readRun(w.store, keys[0] as string);
    expect(doc).toMatchObject({ runId, status: "complete", partialReason: null, startedAt: saved?.startedAt });
    expect(doc.levels.map((l) => loadPosition(l.load))).toEqual([1, 2, 3, 4]);
    for (const c of [1, 2, 3, 4]) expect(doc.samples.filter((s) => s.level === c)).toHaveLength(4);
    // A continued level's samples start after the earlier ones, not again at zero.
    expect(doc.samples.find((s) => s.level === 3)?.startMs).toBeGreaterThanOrEqual(
      Math.max(...doc.samples.filter((s) => s.level === 1).map((s) => s.startMs)),
    );
    expect(await w.pending.load(runId)).toBeNull();
    expect(await w.index.entries("t-a")).toHaveLength(1);
    expect(w.publishQueue.sent.map((m) => JSON.parse(m.body))).toEqual([{ runs: [runId], targets: ["t-a"] }]);
  });

  it("stores the run partial, with its finished levels, once the continuation budget is spent", async () => {
    const w = world([1, 2, 3, 4], { maxInvocations: 2 });
    // 5.5 steps: one level of four requests fits, the next does not.
    const first = await sweepBatch([slotRecord()], w.invocation(5.5 * STEP_MS));
    expect(first.continued).toHaveLength(1);
    const second = await sweepBatch([nextRecord(w.sweepQueue, "m-2")], w.invocation(5.5 * STEP_MS));
    expect(second.runs).toEqual(first.continued);
    expect(w.sweepQueue.sent).toEqual([]);
    const doc = await readRun(w.store, (await listRunKeys(w.store))[0] as string);
    expect(doc.status).toBe("partial");
    expect(doc.levels.map((l) => loadPosition(l.load))).toEqual([1, 2]);
    expect(doc.partialReason).toMatch(/deadline reached during concurrency 3; the continuation budget of 2/);
    expect(await w.pending.load(doc.runId)).toBeNull();
  });

  it("stores the run partial at once when not one level fits in an invocation", async () => {
    const w = world([1, 2]);
    const summary = await sweepBatch([slotRecord()], w.invocation(2.5 * STEP_MS));
    expect(summary.runs).toHaveLength(1);
    expect(w.sweepQueue.sent).toEqual([]);
    const doc = await readRun(w.store, (await listRunKeys(w.store))[0] as string);
    expect(doc.status).toBe("partial");
    expect(doc.levels).toEqual([]);
    expect(doc.partialReason).toMatch(/no level finished within one invocation/);
  });

  it("yields one run when a continuation is delivered twice at once, and ignores a late third copy", async () => {
    const w = world([1, 2, 3]);
    const first = await sweepBatch([slotRecord()], w.invocation(6.5 * STEP_MS));
    expect(first.continued).toHaveLength(1);
    const copy = nextRecord(w.sweepQueue, "m-2");
    const both = await Promise.all([
      sweepBatch([copy], w.invocation(1_000 * STEP_MS)),
      sweepBatch([{ ...copy, messageId: "m-2-again" }], w.invocation(1_000 * STEP_MS)),
    ]);
    expect(both.map((s) => s.runs.length).sort()).toEqual([0, 1]);
    expect(both.map((s) => s.duplicates).sort()).toEqual([0, 1]);
    const late = await sweepBatch([{ ...copy, messageId: "m-2-late" }], w.invocation(1_000 * STEP_MS));
    expect(late).toMatchObject({ runs: [], duplicates: 1, batchItemFailures: [] });
    // And a duplicate of the slot's first message finds the run done.
    expect(await sweepBatch([slotRecord()], w.invocation(1_000 * STEP_MS))).toMatchObject({ runs: [], duplicates: 1 });
    const keys = await listRunKeys(w.store);
    expect(keys).toHaveLength(1);
    expect((await readRun(w.store, keys[0] as string)).levels.map((l) => loadPosition(l.load))).toEqual([1, 2, 3]);
    expect(await w.index.entries("t-a")).toHaveLength(1);
  });

  it("reports malformed messages, unknown targets and mismatched continuations, and sweeps the rest", async () => {
    const w = world([1]);
    const before = received;
    const records: QueueRecord[] = [
      { messageId: "bad-json", body: "{not json" },
      { messageId: "bad-slot", body: JSON.stringify({ targetId: "t-a", slot: "soon" }) },
      { messageId: "extra", body: JSON.stringify({ targetId: "t-a", slot: "2026-12-03T06:00:00Z", x: 1 }) },
      slotRecord("nobody", "unknown"),
      {
        messageId: "mismatch",
        body: JSON.stringify({
          targetId: "t-a",
          slot: "2026-12-03T06:00:00Z",
          continuation: { runId: "other", levelIndex: 1, invocation: 2, fromOwner: "x" },
        }),
      },
      slotRecord("t-a", "good"),
    ];
    const summary = await sweepBatch(records, w.invocation(1_000 * STEP_MS));
    expect(summary.rejected).toBe(5);
    expect(summary.batchItemFailures.map((f) => f.itemIdentifier)).toEqual([
      "bad-json",
      "bad-slot",
      "extra",
      "unknown",
      "mismatch",
    ]);
    expect(summary.runs).toHaveLength(1);
    expect(received - before).toBe(4);
    const warnings = w.lines.filter((l) => l.startsWith("WARN"));
    expect(warnings).toHaveLength(5);
    expect(warnings.find((l) => l.includes("unknown"))).toMatch(/unknown target "nobody"/);
    expect(warnings.find((l) => l.includes("bad-slot"))).toMatch(/slot/);
  });

  it("reports a continuation whose saved levels are missing, and hands the claim back for the retry", async () => {
    const w = world([1, 2, 3]);
    await sweepBatch([slotRecord()], w.invocation(6.5 * STEP_MS));
    const record = nextRecord(w.sweepQueue, "m-2");
    const saved = w.pending.bodies.get([...w.pending.bodies.keys()][0] as string) as string;
    w.pending.bodies.clear();
    const failed = await sweepBatch([record], w.invocation(1_000 * STEP_MS));
    expect(failed).toMatchObject({ runs: [], failed: 1, batchItemFailures: [{ itemIdentifier: "m-2" }] });
    // The retry of the same message takes the claim again once the saved levels are back.
    w.pending.bodies.set(`pending/${JSON.parse(saved).runId}.json`, saved);
    const retried = await sweepBatch([record], w.invocation(1_000 * STEP_MS));
    expect(retried.runs).toHaveLength(1);
    expect((await readRun(w.store, (await listRunKeys(w.store))[0] as string)).status).toBe("complete");
  });

  it("sweeps each (target, scenario) of a slot as its own run, a scenario's run id and continuation naming it", async () => {
    const w = world([1], { scenarios: { chat: {}, rag: { promptTokens: 16, concurrency: [1, 2] } } });
    // Prepare: the slot fanned out, one message per (target, scenario); chat's as before scenarios.
    await fanOutSlot(slotSweeps(w.config), "2026-12-03T06:00:00Z", w.sweepQueue);
    const [chat, rag] = w.sweepQueue.take();
    expect(JSON.parse(chat?.body as string)).toEqual({ targetId: "t-a", slot: "2026-12-03T06:00:00.000Z" });
    expect(JSON.parse(rag?.body as string)).toEqual({
      targetId: "t-a",
      scenario: "rag",
      slot: "2026-12-03T06:00:00.000Z",
    });
    expect([chat?.groupId, rag?.groupId]).toEqual(["t-a", "t-a"]);
    const chatRunId = slotRunId("t-a", "2026-12-03T06:00:00Z");
    const ragRunId = slotRunId("t-a", "2026-12-03T06:00:00Z", "rag");
    expect([chat?.deduplicationId, rag?.deduplicationId]).toEqual([chatRunId, ragRunId]);
    // Act: chat fits; rag's second level does not fit its first invocation and continues.
    const first = await sweepBatch(
      [
        { messageId: "chat", body: chat?.body as string },
        { messageId: "rag", body: rag?.body as string },
      ],
      w.invocation(5.5 * STEP_MS),
    );
    expect(first).toMatchObject({ runs: [chatRunId], continued: [ragRunId], rejected: 0 });
    const next = nextRecord(w.sweepQueue, "rag-2");
    expect(SweepMessage.parse(JSON.parse(next.body))).toMatchObject({
      scenario: "rag",
      continuation: { runId: ragRunId },
    });
    const second = await sweepBatch([next], w.invocation(1_000 * STEP_MS));
    expect(second.runs).toEqual([ragRunId]);
    // Assess: two runs of one target, each with its scenario and its own workload.
    const docs = await Promise.all((await listRunKeys(w.store)).map((k) => readRun(w.store, k)));
    const byScenario = Object.fromEntries(docs.map((d) => [d.scenario, d]));
    expect(Object.keys(byScenario).sort()).toEqual(["chat", "rag"]);
    expect(byScenario.chat).toMatchObject({ runId: chatRunId, status: "complete", workload: { promptTokens: 8 } });
    expect(byScenario.rag).toMatchObject({ runId: ragRunId, status: "complete", workload: { promptTokens: 16 } });
    expect(byScenario.rag?.levels.map((l) => loadPosition(l.load))).toEqual([1, 2]);
    expect((await w.index.entries("t-a")).map((e) => e.scenario).sort()).toEqual(["chat", "rag"]);
  });

  it("rejects a scenario the target is not swept in; a message without one is chat's", async () => {
    const w = world([1], { scenarios: { chat: {}, rag: {} } });
    const summary = await sweepBatch(
      [
        {
          messageId: "gone",
          body: JSON.stringify({ targetId: "t-a", scenario: "nope", slot: "2026-12-03T06:00:00Z" }),
        },
        slotRecord("t-a", "old"),
      ],
      w.invocation(1_000 * STEP_MS),
    );
    expect(summary.batchItemFailures).toEqual([{ itemIdentifier: "gone" }]);
    expect(summary.runs).toEqual([slotRunId("t-a", "2026-12-03T06:00:00Z")]);
    expect(w.lines.find((l) => l.startsWith("WARN"))).toMatch(/no scenario "nope" \(its scenarios: chat, rag\)/);
  });
});
