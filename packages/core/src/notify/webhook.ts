/**
 * @module Posting an alert to a webhook as Slack-compatible JSON, with a timeout per attempt and
 * retries. The URL is a secret (Slack's carries its token in the path): it never appears in results.
 */
import type { Alert } from "../alerts/index.ts";
import { alertLines } from "./format.ts";

/** Slack's `text` (the notification fallback) and one mrkdwn section with the whole message. */
export interface SlackMessage {
  text: string;
  blocks: Array<{ type: "section"; text: { type: "mrkdwn"; text: string } }>;
}

/** Slack's mrkdwn treats `&`, `<` and `>` as control characters; everything else passes. */
function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Slack limits a section's text to 3000 characters. */
const SECTION_MAX_CHARS = 3000;

export function slackMessage(alert: Alert): SlackMessage {
  const [title = alert.title, ...rest] = alertLines(alert);
  const body = escapeMrkdwn(`*${title}*\n${rest.join("\n")}`.trim());
  return {
    text: escapeMrkdwn(title),
    blocks: [{ type: "section", text: { type: "mrkdwn", text: body.slice(0, SECTION_MAX_CHARS) } }],
  };
}

export interface WebhookOptions {
  /** Per attempt, in ms. Default 5000. */
  timeoutMs?: number;
  /** Attempts after the first. Default 2. */
  retries?: number;
  /** Wait before the first retry, doubled for each later one, in ms. Default 250. */
  backoffMs?: number;
  fetch?: typeof fetch;
  /** The attempt timeout and the wait between attempts; default real time. Tests record or drive them. */
  timer?: WebhookTimer;
}

/** Where postWebhook's time comes from. */
export interface WebhookTimer {
  /** A signal that aborts after ms. */
  timeout(ms: number): AbortSignal;
  /** Resolves after ms. */
  sleep(ms: number): Promise<void>;
}

const realTimer: WebhookTimer = {
  timeout: (ms) => AbortSignal.timeout(ms),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

export interface WebhookResult {
  ok: boolean;
  attempts: number;
  /** Why the last attempt failed; never contains the URL. */
  error?: string;
}

/** A Retry-After longer than this is not waited for: the webhook must not hold delivery up. */
const MAX_RETRY_AFTER_MS = 5000;

/** Replaces the URL (and its path, where the secret sits) in text that may quote it. */
export function redactUrl(text: string, url: string): string {
  const secrets = [url];
  try {
    const parsed = new URL(url);
    secrets.push(parsed.href);
    if (parsed.pathname.length > 1) secrets.push(parsed.pathname);
    if (parsed.search) secrets.push(parsed.search);
  } catch {
    // An unparsable URL is redacted as given.
  }
  let out = text;
  for (const secret of secrets.sort((a, b) => b.length - a.length)) out = out.split(secret).join("<webhook url>");
  return out;
}

/** A failed fetch's message with its cause's (ECONNREFUSED ...), which is what tells people why. */
function describe(error: unknown): string {
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) return "timed out";
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
  return `${error.message}${cause}`;
}

/** Posts the alert; retries network errors, timeouts, 5xx and 429. Never throws. */
export async function postWebhook(url: string, alert: Alert, options: WebhookOptions = {}): Promise<WebhookResult> {
  const { timeoutMs = 5000, retries = 2, backoffMs = 250 } = options;
  const doFetch = options.fetch ?? fetch;
  const timer = options.timer ?? realTimer;
  const body = JSON.stringify(slackMessage(alert));
  let error = "not attempted";
  for (let attempt = 1; attempt <= retries + 1; attempt++) {
    let waitMs = backoffMs * 2 ** (attempt - 1);
    try {
      const response = await doFetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
        signal: timer.timeout(timeoutMs),
      });
      // Drain the body so the connection is released; its content is not needed.
      await response.arrayBuffer().catch(() => undefined);
      if (response.ok) return { ok: true, attempts: attempt };
      error = `HTTP ${response.status}`;
      if (response.status !== 429 && response.status < 500)
        return { ok: false, attempts: attempt, error: redactUrl(error, url) };
      const retryAfterS = Number(response.headers.get("retry-after"));
      if (response.status === 429 && Number.isFinite(retryAfterS) && retryAfterS > 0) {
        waitMs = Math.max(waitMs, Math.min(retryAfterS * 1000, MAX_RETRY_AFTER_MS));
      }
    } catch (cause) {
      error = describe(cause);
    }
    if (attempt <= retries) await timer.sleep(waitMs);
  }
  return { ok: false, attempts: retries + 1, error: redactUrl(error, url) };
}
