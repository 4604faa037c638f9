/**
 * @module The response writer: a chat answer framed as OpenAI sends it, server-sent events
 * (`data: {...}\n\n` chunks, a usage chunk, `data: [DONE]`) or one JSON completion, and the error
 * responses.
 */
import type { ServerResponse } from "node:http";

/** An error response, in OpenAI's shape. */
export const writeError = (
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
) =>
  res
    .writeHead(status, { "content-type": "application/json", ...headers })
    .end(JSON.stringify({ error: { message, type: "reference_error", code: status } }));

/** What every chunk and completion of one answer repeats: its id, time, model and (through a gateway) provider. */
export interface AnswerHeader {
  id: string;
  created: number;
  model: string;
  /** `{ provider }` through a gateway, else empty. */
  extra: Record<string, unknown>;
}

/** Writes one answer to `res`: its status line, its SSE events or its JSON completion. */
export class ChatWriter {
  constructor(
    private readonly res: ServerResponse,
    private readonly header: AnswerHeader,
    readonly stream: boolean,
  ) {}

  /** 200 with the answer's content type and `headers`; a stream's headers go out at once. */
  open(headers: Record<string, string>): void {
    this.res.writeHead(200, {
      "content-type": this.stream ? "text/event-stream" : "application/json",
      "cache-control": "no-cache",
      ...headers,
    });
    if (this.stream) this.res.flushHeaders();
  }

  /** One `chat.completion.chunk` event, framed. */
  frame(delta: Record<string, unknown>, finish: string | null): string {
    const { id, created, model, extra } = this.header;
    return `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, ...extra, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  }

  /** Writes bytes of the stream as they are (a framed event, or a piece of one). */
  write(data: string | Buffer): void {
    this.res.write(data);
  }

  /** Writes one chunk event. */
  chunk(delta: Record<string, unknown>, finish: string | null): void {
    this.res.write(this.frame(delta, finish));
  }

  /** Writes the usage chunk (no choices), as `stream_options.include_usage` asks. */
  usage(usage: Record<string, unknown>): void {
    const { id, created, model, extra } = this.header;
    this.res.write(
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, ...extra, choices: [], usage })}\n\n`,
    );
  }

  /** Ends the stream as OpenRouter does when its provider fails mid-stream: an error event with `finish_reason: "error"`, then [DONE]. */
  failMidStream(): void {
    const { id, created, model, extra } = this.header;
    this.res.end(
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, ...extra, error: { code: 502, message: "Provider returned error", metadata: { raw: "the reference engine failed mid-stream" } }, choices: [{ index: 0, delta: { content: "" }, finish_reason: "error" }] })}\n\ndata: [DONE]\n\n`,
    );
  }

  /** Ends the stream with [DONE]. */
  done(): void {
    this.res.end("data: [DONE]\n\n");
  }

  /** Ends a non-streamed answer: one `chat.completion`. */
  completion(message: Record<string, unknown>, finish: string, usage: Record<string, unknown>): void {
    const { id, created, model, extra } = this.header;
    this.res.end(
      JSON.stringify({
        id,
        object: "chat.completion",
        created,
        model,
        ...extra,
        choices: [{ index: 0, message, finish_reason: finish }],
        usage,
      }),
    );
  }
}
