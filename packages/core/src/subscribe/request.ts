/**
 * @module Reading and validating a subscribe request body (JSON or an HTML form post): an email
 * address and the target ids to follow. Pure: the caller supplies the known target ids.
 */
import { z } from "zod";

/** Bigger bodies are refused before parsing (an email and 50 ids fit easily). */
export const MAX_BODY_BYTES = 4096;
/** A filter policy allows 150 value combinations; 50 targets leave room and cover the board. */
export const MAX_TARGETS = 50;
/** RFC 5321: 254 for the whole path, 64 for the local part. */
const MAX_EMAIL_CHARS = 254;
const MAX_LOCAL_CHARS = 64;

/** What a valid request asks for: the address as SNS gets it, and the targets in request order. */
export interface Subscription {
  email: string;
  targets: string[];
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; statusCode: 400 | 413 | 415; error: string };

/** The wire shape, before the semantic checks. */
export const SubscribeRequest = z.strictObject({
  email: z.string({ error: "email is required" }),
  targets: z.array(z.string({ error: "each target must be a string" }), { error: "targets must be a list of ids" }),
});
export type SubscribeRequest = z.infer<typeof SubscribeRequest>;

/** Dot-atoms on both sides (RFC 5322 without quoted strings or comments), a dotted domain. */
const EMAIL =
  /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/**
 * The address trimmed, its domain lowercased (the local part may be case-sensitive), or null when
 * it is not a plausible address.
 */
export function normalizeEmail(input: string): string | null {
  const email = input.trim();
  if (email.length > MAX_EMAIL_CHARS || !EMAIL.test(email)) return null;
  const at = email.lastIndexOf("@");
  if (at > MAX_LOCAL_CHARS) return null;
  return `${email.slice(0, at)}@${email.slice(at + 1).toLowerCase()}`;
}

function mediaType(contentType: string | undefined): string {
  return (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

/** True for a plain HTML form post, which gets an HTML page back rather than JSON. */
export function isFormPost(contentType: string | undefined): boolean {
  return mediaType(contentType) === "application/x-www-form-urlencoded";
}

/** Decodes, size-checks and parses the body into the wire shape. */
export function readSubscribeBody(
  body: string | null,
  options: { isBase64Encoded?: boolean; contentType?: string },
): Parsed<SubscribeRequest> {
  if (body === null || body === "") return { ok: false, statusCode: 400, error: "the request has no body" };
  // Refuse on the encoded length first, so a huge body is never decoded.
  if (body.length > MAX_BODY_BYTES * 2) return tooLarge();
  const bytes = options.isBase64Encoded ? Buffer.from(body, "base64") : Buffer.from(body, "utf8");
  if (bytes.length > MAX_BODY_BYTES) return tooLarge();
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return { ok: false, statusCode: 400, error: "the body is not UTF-8 text" };
  }
  const type = mediaType(options.contentType);
  let raw: unknown;
  if (type === "application/json") {
    try {
      raw = JSON.parse(text);
    } catch {
      return { ok: false, statusCode: 400, error: "the body is not valid JSON" };
    }
  } else if (type === "application/x-www-form-urlencoded") {
    const form = new URLSearchParams(text);
    raw = { email: form.get("email") ?? undefined, targets: form.getAll("targets") };
  } else {
    return {
      ok: false,
      statusCode: 415,
      error: "send application/json or application/x-www-form-urlencoded",
    };
  }
  const parsed = SubscribeRequest.safeParse(raw);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    const path = first?.path.length ? `${first.path.join(".")}: ` : "";
    return { ok: false, statusCode: 400, error: `${path}${first?.message ?? "invalid request"}` };
  }
  return { ok: true, value: parsed.data };
}

function tooLarge(): Parsed<never> {
  return { ok: false, statusCode: 413, error: `the body is larger than ${MAX_BODY_BYTES} bytes` };
}

/** The semantic checks: a plausible address; 1 to MAX_TARGETS targets, unique, all known. */
export function validateSubscription(
  request: SubscribeRequest,
  knownTargetIds: Iterable<string>,
): Parsed<Subscription> {
  const email = normalizeEmail(request.email);
  if (email === null) return { ok: false, statusCode: 400, error: "email is not a valid email address" };
  const { targets } = request;
  if (targets.length === 0) return { ok: false, statusCode: 400, error: "choose at least one target" };
  if (targets.length > MAX_TARGETS) {
    return { ok: false, statusCode: 400, error: `choose at most ${MAX_TARGETS} targets (got ${targets.length})` };
  }
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const t of targets) (seen.has(t) ? twice : seen).add(t);
  if (twice.size > 0) return { ok: false, statusCode: 400, error: `target listed twice: ${[...twice].join(", ")}` };
  const known = new Set(knownTargetIds);
  const unknown = targets.filter((t) => !known.has(t));
  if (unknown.length > 0) {
    const label = unknown.length === 1 ? "unknown target" : "unknown targets";
    return { ok: false, statusCode: 400, error: `${label}: ${unknown.join(", ")}` };
  }
  return { ok: true, value: { email, targets } };
}
