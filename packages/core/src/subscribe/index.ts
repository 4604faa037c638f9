/**
 * @module The subscribe endpoint's logic, independent of Lambda's event type: validate an email
 * and target ids, limit repeated requests, and subscribe the address through the subscriptions port
 * (deployed: the SNS topic with a filter policy on `targetId`, aws/sns.ts; SNS then sends the
 * confirmation mail).
 */
import { KneeboardError } from "../errors/index.ts";
import type { RateLimiter } from "../limiter/index.ts";
import { isFormPost, readSubscribeBody, validateSubscription } from "./request.ts";
import { corsHeaders, type HttpResponse, htmlResponse, jsonResponse } from "./respond.ts";

export {
  isFormPost,
  MAX_BODY_BYTES,
  MAX_TARGETS,
  normalizeEmail,
  readSubscribeBody,
  SubscribeRequest,
  type Subscription,
  validateSubscription,
} from "./request.ts";
export { escapeHtml, type HttpResponse } from "./respond.ts";

export interface SubscribeHttpRequest {
  method: string;
  body: string | null;
  isBase64Encoded?: boolean;
  contentType?: string;
  sourceIp?: string;
}

export interface RateLimit {
  limit: number;
  windowMs: number;
}

/**
 * Per address: a few confirmation mails an hour is plenty for a person and keeps the endpoint from
 * mailing a stranger repeatedly. Per source IP: room for a shared office, not for a script.
 */
export const DEFAULT_SUBSCRIBE_LIMITS: { perEmail: RateLimit; perIp: RateLimit } = {
  perEmail: { limit: 3, windowMs: 3_600_000 },
  perIp: { limit: 20, windowMs: 3_600_000 },
};

/** Where an address is subscribed to the alerts of some targets (deployed: `SnsSubscriptions`, aws/sns.ts). */
export interface AlertSubscriptions {
  /**
   * Subscribes `email` to the alerts of `targetIds`; the service mails the confirmation. Throws
   * `AlreadySubscribedError` when the address is already subscribed with other targets.
   */
  subscribe(email: string, targetIds: string[]): Promise<void>;
}

/** The address is already subscribed with other targets (SNS refuses a second subscription of it). */
export class AlreadySubscribedError extends KneeboardError {
  override name = "AlreadySubscribedError";
}

export interface SubscribeDeps {
  subscriptions: AlertSubscriptions;
  knownTargetIds: string[] | (() => Promise<string[]>);
  limiter: RateLimiter;
  /** The request's time, in ms since the epoch. */
  nowMs: number;
  limits?: Partial<typeof DEFAULT_SUBSCRIBE_LIMITS>;
  /** `Access-Control-Allow-Origin` for JSON responses; default `*`. */
  allowOrigin?: string;
  /** The alerts page, linked from the HTML pages that answer form posts. */
  returnUrl?: string;
  /** Told about failed subscribes (never the address). */
  warn?: (message: string) => void;
}

/** Handles one request; never throws (a failed subscribe is a 502). */
export async function handleSubscribe(request: SubscribeHttpRequest, deps: SubscribeDeps): Promise<HttpResponse> {
  const form = isFormPost(request.contentType);
  const cors = corsHeaders(deps.allowOrigin);
  const limits = { ...DEFAULT_SUBSCRIBE_LIMITS, ...deps.limits };
  const fail = (statusCode: number, error: string, extra: Record<string, string> = {}): HttpResponse =>
    form
      ? htmlResponse(statusCode, { title: "Not subscribed", message: error, returnUrl: deps.returnUrl }, extra)
      : jsonResponse(statusCode, { error }, { ...cors, ...extra });

  const method = request.method.toUpperCase();
  if (method === "OPTIONS") return { statusCode: 204, headers: cors, body: "" };
  if (method !== "POST") return fail(405, "use POST", { allow: "POST, OPTIONS" });

  // The IP limit counts every POST, valid or not; the address limit only requests that would mail.
  const tooMany = (limit: RateLimit) =>
    fail(429, "too many requests; try again later", { "retry-after": String(Math.ceil(limit.windowMs / 1000)) });
  if (
    request.sourceIp &&
    !(await deps.limiter.take(
      `subscribe:ip:${request.sourceIp}`,
      limits.perIp.limit,
      limits.perIp.windowMs,
      deps.nowMs,
    ))
  ) {
    return tooMany(limits.perIp);
  }

  const body = readSubscribeBody(request.body, request);
  if (!body.ok) return fail(body.statusCode, body.error);
  const known = typeof deps.knownTargetIds === "function" ? await deps.knownTargetIds() : deps.knownTargetIds;
  const valid = validateSubscription(body.value, known);
  if (!valid.ok) return fail(valid.statusCode, valid.error);
  const { email, targets } = valid.value;

  const emailKey = `subscribe:email:${email.toLowerCase()}`;
  if (!(await deps.limiter.take(emailKey, limits.perEmail.limit, limits.perEmail.windowMs, deps.nowMs))) {
    return tooMany(limits.perEmail);
  }

  try {
    await deps.subscriptions.subscribe(email, targets);
  } catch (error) {
    // Changing an existing subscription's targets without the owner's confirmation would let anyone
    // edit it, so we don't.
    if (error instanceof AlreadySubscribedError) {
      return fail(
        409,
        "this address is already subscribed with other targets; unsubscribe with the link in any alert mail, then subscribe again",
      );
    }
    const name = error instanceof Error ? error.name : "Error";
    const text = error instanceof Error ? error.message : String(error);
    deps.warn?.(`SNS Subscribe failed: ${name}: ${text}`);
    return fail(502, "could not subscribe right now; try again later");
  }

  const message = `A confirmation mail was sent to ${email}. Follow its link to receive alerts for ${targets.length === 1 ? "1 target" : `${targets.length} targets`}.`;
  return form
    ? htmlResponse(202, { title: "Check your inbox", message, returnUrl: deps.returnUrl })
    : jsonResponse(202, { message, email, targets }, cors);
}
