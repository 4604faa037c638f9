import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { Alert } from "../alerts/index.ts";
import { MemoryAlertLedger } from "../ledger/memory.ts";
import { makeAlert } from "./alert.fixture.ts";
import { type Channel, deliver, webhookChannel } from "./deliver.ts";
import { postWebhook, redactUrl } from "./webhook.ts";

/** The secret part of a Slack-style webhook URL; it must never show in results or warnings. */
const SECRET_PATH = "/services/T0000/B0000/s3cr3tT0k3n";

interface Hook {
  url: string;
  bodies: unknown[];
  close(): Promise<void>;
}

const open: Hook[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((h) => h.close()));
});

/** A webhook on 127.0.0.1 answering each request with `respond(n)` (n counts from 1). */
async function startHook(respond: (n: number, res: ServerResponse, req: IncomingMessage) => void): Promise<Hook> {
  const bodies: unknown[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      bodies.push(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      respond(bodies.length, res, req);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const hook = {
    url: `http://127.0.0.1:${port}${SECRET_PATH}`,
    bodies,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  open.push(hook);
  return hook;
}

const status = (code: number) => (_n: number, res: ServerResponse) => res.writeHead(code).end("x");
// Short backoffs keep retries quick; the attempt timeout stays long (a loaded machine may take a while
// to answer on loopback), and the test of the timeout itself drives it through an injected timer.
const fast = { timeoutMs: 10_000, backoffMs: 5 };

describe("postWebhook", () => {
  it("posts Slack-compatible JSON", async () => {
    const hook = await startHook(status(200));
    const result = await postWebhook(hook.url, makeAlert(), fast);
    expect(result).toEqual({ ok: true, attempts: 1 });
    const [body] = hook.bodies as Array<{
      text: string;
      blocks: Array<{ type: string; text: { type: string; text: string } }>;
    }>;
    expect(body?.text).toBe(makeAlert().title);
    expect(body?.blocks[0]?.type).toBe("section");
    expect(body?.blocks[0]?.text.type).toBe("mrkdwn");
    expect(body?.blocks[0]?.text.text).toContain("single-stream: 82.4 tok/s");
  });

  it("escapes Slack's control characters", async () => {
    const hook = await startHook(status(200));
    await postWebhook(hook.url, makeAlert({ title: "a <b> & c" }), fast);
    expect((hook.bodies[0] as { text: string }).text).toBe("a &lt;b&gt; &amp; c");
  });

  it("retries a 500 and succeeds on the second attempt", async () => {
    const hook = await startHook((n, res) => res.writeHead(n === 1 ? 500 : 200).end());
    expect(await postWebhook(hook.url, makeAlert(), fast)).toEqual({ ok: true, attempts: 2 });
  });

  it("retries a 429", async () => {
    const hook = await startHook((n, res) => res.writeHead(n === 1 ? 429 : 200, { "retry-after": "0" }).end());
    expect(await postWebhook(hook.url, makeAlert(), fast)).toEqual({ ok: true, attempts: 2 });
  });

  it("gives up after its retries when the server always fails", async () => {
    const hook = await startHook(status(500));
    const result = await postWebhook(hook.url, makeAlert(), { ...fast, retries: 2 });
    expect(result).toEqual({ ok: false, attempts: 3, error: "HTTP 500" });
    expect(hook.bodies).toHaveLength(3);
  });

  it("does not retry a 4xx other than 429", async () => {
    const hook = await startHook(status(404));
    expect(await postWebhook(hook.url, makeAlert(), fast)).toEqual({ ok: false, attempts: 1, error: "HTTP 404" });
  });

  it("times out a server that never answers, per attempt", async () => {
    // Prepare: a server that takes every request and never answers; a timer that records what is
    // asked of it and aborts an attempt only once the server holds its request (no wall-clock window).
    const hook = await startHook(() => {});
    const asked: string[] = [];
    const timer = {
      timeout(ms: number) {
        asked.push(`timeout ${ms}`);
        const controller = new AbortController();
        const held = hook.bodies.length + 1;
        const poll = setInterval(() => {
          if (hook.bodies.length < held) return;
          clearInterval(poll);
          controller.abort(new DOMException("attempt timed out", "TimeoutError"));
        }, 5);
        return controller.signal;
      },
      async sleep(ms: number) {
        asked.push(`sleep ${ms}`);
      },
    };
    // Act
    const result = await postWebhook(hook.url, makeAlert(), { ...fast, retries: 1, timer });
    // Assess: two attempts, each reached the server and was cut by its own timeout, one backoff between.
    expect(result).toEqual({ ok: false, attempts: 2, error: "timed out" });
    expect(hook.bodies).toHaveLength(2);
    expect(asked).toEqual([`timeout ${fast.timeoutMs}`, `sleep ${fast.backoffMs}`, `timeout ${fast.timeoutMs}`]);
  });

  it("never shows the URL in an error", async () => {
    // Prepare: a port nothing listens on (a server started and closed), and an unparsable URL.
    const gone = await startHook(status(200));
    await gone.close();
    const bad = `http://[not-a-host${SECRET_PATH}`;

    // Act
    const refused = await postWebhook(gone.url, makeAlert(), fast);
    const unparsable = await postWebhook(bad, makeAlert(), { ...fast, retries: 0 });

    // Assess
    expect(refused.ok).toBe(false);
    expect(refused.error).toMatch(/ECONNREFUSED/);
    for (const error of [refused.error, unparsable.error]) {
      expect(error).not.toContain("s3cr3tT0k3n");
      expect(error).not.toContain(SECRET_PATH);
    }
    expect(unparsable.error).toContain("<webhook url>");
  });

  it("takes an injected fetch", async () => {
    const calls: string[] = [];
    const fakeFetch: typeof fetch = async (input) => {
      calls.push(String(input));
      return new Response(null, { status: 204 });
    };
    expect(await postWebhook("https://hooks.example/x", makeAlert(), { fetch: fakeFetch })).toEqual({
      ok: true,
      attempts: 1,
    });
    expect(calls).toEqual(["https://hooks.example/x"]);
  });
});

describe("redactUrl", () => {
  it("removes the whole URL and its path", () => {
    const url = `https://hooks.slack.com${SECRET_PATH}`;
    expect(redactUrl(`failed ${url} and ${SECRET_PATH}`, url)).toBe("failed <webhook url> and <webhook url>");
  });
});

describe("deliver with a webhook", () => {
  /** A channel that records what it was sent. */
  function recording(name: string): Channel & { sent: Alert[] } {
    const sent: Alert[] = [];
    return { name, sent, send: async (a) => void sent.push(a) };
  }

  it("reports a webhook that always fails, still sends on the other channel, and retries the webhook next run", async () => {
    // Prepare
    let healthy = false;
    const hook = await startHook((_n, res) => res.writeHead(healthy ? 200 : 500).end());
    const other = recording("other");
    const ledger = new MemoryAlertLedger();
    const warnings: string[] = [];
    const alerts = [makeAlert({ id: "x1" })];
    const channels = [webhookChannel(hook.url, { ...fast, retries: 1 }), other];

    // Act
    const failed = await deliver(alerts, { ledger, channels, warn: (m) => warnings.push(m) });
    healthy = true;
    const retried = await deliver(alerts, { ledger, channels });

    // Assess
    expect(failed.channels.webhook).toEqual({
      sent: 0,
      skipped: 0,
      failed: 1,
      errors: ["x1 open: webhook failed after 2 attempts: HTTP 500"],
    });
    expect(failed.channels.other).toMatchObject({ sent: 1, failed: 0 });
    expect(warnings.join("\n")).not.toContain("s3cr3tT0k3n");
    expect(retried.channels.webhook).toMatchObject({ sent: 1, failed: 0 });
    expect(retried.channels.other).toMatchObject({ sent: 0, skipped: 1 });
    expect(other.sent).toHaveLength(1);
    expect(hook.bodies).toHaveLength(3);
  });

  it("never leaks the URL through warnings when the host is down", async () => {
    const gone = await startHook(status(200));
    await gone.close();
    const warnings: string[] = [];
    const report = await deliver([makeAlert()], {
      ledger: new MemoryAlertLedger(),
      channels: [webhookChannel(gone.url, fast)],
      warn: (m) => warnings.push(m),
    });
    expect(report.channels.webhook?.failed).toBe(1);
    expect(JSON.stringify(report) + warnings.join("\n")).not.toContain("s3cr3tT0k3n");
  });
});
