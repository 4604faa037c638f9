/**
 * @module The subscribe endpoint on subscriptions in memory that refuse, as SNS does, an address
 * already subscribed with other targets. The SNS adapter, and this endpoint on it, are tested on
 * fauxqs in aws/sns.test.ts.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { MemoryRateLimiter } from "../limiter/memory.ts";
import {
  type AlertSubscriptions,
  AlreadySubscribedError,
  handleSubscribe,
  type SubscribeDeps,
  type SubscribeHttpRequest,
} from "./index.ts";

/** Each address's targets, as subscribed; another set of targets for a known address is refused. */
class MemorySubscriptions implements AlertSubscriptions {
  readonly targetsOf = new Map<string, string[]>();

  async subscribe(email: string, targetIds: string[]): Promise<void> {
    const existing = this.targetsOf.get(email);
    if (existing && existing.join("\n") !== targetIds.join("\n")) throw new AlreadySubscribedError("other targets");
    this.targetsOf.set(email, [...targetIds]);
  }
}

let subscriptions: MemorySubscriptions;
let deps: SubscribeDeps;
const TARGETS = ["acme-llama-70b", "zed-qwen-32b", "other-model"];

beforeEach(() => {
  subscriptions = new MemorySubscriptions();
  deps = {
    subscriptions,
    knownTargetIds: TARGETS,
    limiter: new MemoryRateLimiter(),
    nowMs: Date.parse("2025-03-01T00:00:00Z"),
  };
});

const json = (body: unknown, extra: Partial<SubscribeHttpRequest> = {}): SubscribeHttpRequest => ({
  method: "POST",
  body: typeof body === "string" ? body : JSON.stringify(body),
  contentType: "application/json",
  sourceIp: "203.0.113.7",
  ...extra,
});

const form = (fields: Array<[string, string]>, extra: Partial<SubscribeHttpRequest> = {}): SubscribeHttpRequest => ({
  method: "POST",
  body: new URLSearchParams(fields).toString(),
  contentType: "application/x-www-form-urlencoded",
  sourceIp: "203.0.113.7",
  ...extra,
});

const errorOf = (body: string) => (JSON.parse(body) as { error: string }).error;

describe("handleSubscribe", () => {
  it("subscribes a JSON request's address to its targets", async () => {
    // Act
    const res = await handleSubscribe(
      json({ email: "Ada@Example.COM", targets: ["acme-llama-70b", "zed-qwen-32b"] }),
      deps,
    );

    // Assess
    expect(res.statusCode).toBe(202);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    expect(res.headers["access-control-allow-origin"]).toBe("*");
    expect(JSON.parse(res.body)).toMatchObject({
      email: "Ada@example.com",
      targets: ["acme-llama-70b", "zed-qwen-32b"],
    });
    expect(JSON.parse(res.body).message).toMatch(/confirmation mail was sent/);
    expect(Object.fromEntries(subscriptions.targetsOf)).toEqual({
      "Ada@example.com": ["acme-llama-70b", "zed-qwen-32b"],
    });
  });

  it("takes a plain HTML form post, base64-encoded as Lambda passes it, and answers with a page", async () => {
    const body = new URLSearchParams([
      ["email", "grace@example.org"],
      ["targets", "acme-llama-70b"],
      ["targets", "other-model"],
    ]).toString();
    const res = await handleSubscribe(
      { ...form([]), body: Buffer.from(body).toString("base64"), isBase64Encoded: true },
      { ...deps, returnUrl: "https://kneeboard.example/alerts/" },
    );
    expect(res.statusCode).toBe(202);
    expect(res.headers["content-type"]).toMatch(/^text\/html/);
    expect(res.headers["content-security-policy"]).toContain("default-src 'none'");
    expect(res.body).toContain("Check your inbox");
    expect(res.body).toContain('href="https://kneeboard.example/alerts/"');
    expect(subscriptions.targetsOf.get("grace@example.org")).toEqual(["acme-llama-70b", "other-model"]);
  });

  it("answers a CORS preflight", async () => {
    const res = await handleSubscribe({ method: "OPTIONS", body: null }, deps);
    expect(res.statusCode).toBe(204);
    expect(res.headers["access-control-allow-methods"]).toContain("POST");
    expect(res.headers["access-control-allow-headers"]).toContain("content-type");
  });

  it("refuses an invalid email with 400", async () => {
    for (const email of [
      "not-an-email",
      "a@b",
      "a@@b.com",
      "a b@c.com",
      "a..b@c.com",
      `${"x".repeat(65)}@e.com`,
      `a@${"d".repeat(250)}.com`,
    ]) {
      const res = await handleSubscribe(json({ email, targets: ["acme-llama-70b"] }), deps);
      expect(res.statusCode, email).toBe(400);
      expect(errorOf(res.body)).toBe("email is not a valid email address");
    }
  });

  it("refuses unknown targets with 400 naming them", async () => {
    const res = await handleSubscribe(
      json({ email: "a@example.com", targets: ["acme-llama-70b", "nope-1", "nope-2"] }),
      deps,
    );
    expect(res.statusCode).toBe(400);
    expect(errorOf(res.body)).toBe("unknown targets: nope-1, nope-2");
  });

  it("asks the known target ids of a function when given one", async () => {
    const res = await handleSubscribe(json({ email: "fn@example.com", targets: ["late-target"] }), {
      ...deps,
      knownTargetIds: async () => ["late-target"],
    });
    expect(res.statusCode).toBe(202);
  });

  it("refuses empty, duplicate, too many and wrongly typed targets with 400", async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ email: "a@example.com", targets: [] }, /at least one target/],
      [{ email: "a@example.com", targets: ["acme-llama-70b", "acme-llama-70b"] }, /listed twice: acme-llama-70b/],
      [{ email: "a@example.com", targets: Array.from({ length: 51 }, (_, i) => `t${i}`) }, /at most 50 targets/],
      [{ email: "a@example.com", targets: "acme-llama-70b" }, /^targets: targets must be a list of ids/],
      [{ email: "a@example.com" }, /^targets:/],
      [{ targets: ["acme-llama-70b"] }, /^email: email is required/],
      [{ email: "a@example.com", targets: ["acme-llama-70b"], extra: 1 }, /extra/],
    ];
    for (const [body, error] of cases) {
      const res = await handleSubscribe(json(body), deps);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(errorOf(res.body)).toMatch(error);
    }
  });

  it("refuses an oversized body with 413", async () => {
    const res = await handleSubscribe(json({ email: "a@example.com", targets: ["x".repeat(5000)] }), deps);
    expect(res.statusCode).toBe(413);
    expect(errorOf(res.body)).toBe("the body is larger than 4096 bytes");
  });

  it("refuses GET with 405 and an Allow header", async () => {
    const res = await handleSubscribe({ method: "GET", body: null }, deps);
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe("POST, OPTIONS");
    expect(errorOf(res.body)).toBe("use POST");
  });

  it("refuses malformed JSON, an empty body and other content types", async () => {
    const malformed = await handleSubscribe(json('{"email": "a@example.com", "targets": ['), deps);
    expect(malformed.statusCode).toBe(400);
    expect(errorOf(malformed.body)).toBe("the body is not valid JSON");
    const empty = await handleSubscribe(json("", { body: null }), deps);
    expect(empty.statusCode).toBe(400);
    const text = await handleSubscribe(json("email=a", { contentType: "text/plain" }), deps);
    expect(text.statusCode).toBe(415);
  });

  it("limits repeated requests for one address: the 4th within the hour is 429 with Retry-After", async () => {
    const request = (ip: string) =>
      handleSubscribe(json({ email: "Repeat@example.com", targets: ["acme-llama-70b"] }, { sourceIp: ip }), deps);
    const codes = [];
    // Other source IPs, and another case of the address: the address limit still holds.
    for (const ip of ["198.51.100.1", "198.51.100.2", "198.51.100.3"]) codes.push((await request(ip)).statusCode);
    const fourth = await handleSubscribe(json({ email: "repeat@EXAMPLE.com", targets: ["acme-llama-70b"] }), deps);
    expect(codes).toEqual([202, 202, 202]);
    expect(fourth.statusCode).toBe(429);
    expect(fourth.headers["retry-after"]).toBe("3600");
    expect(errorOf(fourth.body)).toMatch(/too many requests/);
    const later = await handleSubscribe(json({ email: "repeat@example.com", targets: ["acme-llama-70b"] }), {
      ...deps,
      nowMs: deps.nowMs + 3_600_000,
    });
    expect(later.statusCode).toBe(202);
  });

  it("limits requests per source IP, valid or not", async () => {
    const limited = { ...deps, limits: { perIp: { limit: 2, windowMs: 60_000 } } };
    const bad = () => handleSubscribe(json({ email: "nope", targets: [] }), limited);
    expect([(await bad()).statusCode, (await bad()).statusCode, (await bad()).statusCode]).toEqual([400, 400, 429]);
    expect((await bad()).headers["retry-after"]).toBe("60");
  });

  it("refuses to change an existing subscription's targets (409)", async () => {
    await handleSubscribe(json({ email: "change@example.com", targets: ["acme-llama-70b"] }), deps);
    const res = await handleSubscribe(json({ email: "change@example.com", targets: ["zed-qwen-32b"] }), deps);
    expect(res.statusCode).toBe(409);
    expect(errorOf(res.body)).toMatch(/already subscribed/);
    expect(subscriptions.targetsOf.get("change@example.com")).toEqual(["acme-llama-70b"]);
  });

  it("answers 502 without details when subscribing fails", async () => {
    const warnings: string[] = [];
    const notFound = Object.assign(new Error("Topic does not exist"), { name: "NotFoundException" });
    const res = await handleSubscribe(json({ email: "x@example.com", targets: ["acme-llama-70b"] }), {
      ...deps,
      subscriptions: { subscribe: () => Promise.reject(notFound) },
      warn: (m) => warnings.push(m),
    });
    expect(res.statusCode).toBe(502);
    expect(errorOf(res.body)).toBe("could not subscribe right now; try again later");
    expect(warnings).toEqual(["SNS Subscribe failed: NotFoundException: Topic does not exist"]);
    expect(warnings.join("\n")).not.toContain("x@example.com");
  });

  it("escapes input it names in a form post's error page", async () => {
    const res = await handleSubscribe(
      form([
        ["email", "a@example.com"],
        ["targets", '<script>alert("x")</script>'],
      ]),
      { ...deps, returnUrl: "javascript:alert(1)" },
    );
    expect(res.statusCode).toBe(400);
    expect(res.headers["content-type"]).toMatch(/^text\/html/);
    expect(res.body).not.toContain("<script>");
    expect(res.body).toContain("unknown target: &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
    expect(res.body).not.toContain("javascript:");
  });
});
