/**
 * @module The batch decoder (./batch-decoder.ts) over real HTTP: OpenAI `/v1/chat/completions`
 * streamed as SSE (one `content: " tok"` chunk a token, the finish, then a usage chunk when
 * `stream_options.include_usage` asks), on 127.0.0.1 and an ephemeral port, on the system clock
 * unless given another scheduler. A fault cuts the connection mid-stream or sends an SSE `error` event
 * and ends the response. Every response says it is simulated. It counts what it received, completed
 * and broke (the decoder's counts) and every HTTP request it was sent.
 */
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { SIMULATED_HEADER } from "@kneeboard/core/client";
import { type Scheduler, systemScheduler } from "@kneeboard/core/scheduler";
import { BatchDecoder, type BatchProfile } from "./batch-decoder.ts";
import { CHARS_PER_TOKEN, DECODER_ERROR_MESSAGE } from "./batch-endpoint.ts";

export interface BatchServer {
  /** Base URL for a target, `http://127.0.0.1:PORT/v1`. */
  url: string;
  decoder: BatchDecoder;
  /** HTTP requests of any kind the server was sent (the decoder counts the chat completions). */
  httpRequests(): number;
  /** The head of each chat completion's last message (its first 80 characters), in the order they reached the decoder. */
  arrivals(): string[];
  close(): Promise<void>;
}

/** Prompt tokens of a request's messages: their text at `CHARS_PER_TOKEN` characters a token, as the in-memory endpoint counts them. */
function promptTokensOf(messages: unknown): number {
  if (!Array.isArray(messages)) return 0;
  const chars = messages.reduce(
    (sum: number, m: { content?: unknown }) => sum + (typeof m?.content === "string" ? m.content.length : 0),
    0,
  );
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/** The first 80 characters of a request's last message: what a sweep's prompt says of its place (`w`arm-up, index, level, run). */
function lastMessageHead(messages: unknown): string {
  const last = Array.isArray(messages) ? (messages.at(-1) as { content?: unknown } | undefined) : undefined;
  return typeof last?.content === "string" ? last.content.slice(0, 80) : "";
}

/** Starts the decoder behind an HTTP server; `admitWindowMs` of the profile should be a few ms here (the client's next request on its way). */
export async function startBatchServer(
  profile: BatchProfile,
  scheduler: Scheduler = systemScheduler,
): Promise<BatchServer> {
  const decoder = new BatchDecoder(profile, scheduler);
  const open = new Set<ServerResponse>();
  let httpRequests = 0;
  const arrivals: string[] = [];
  let id = 0;
  const server = createServer((req, res) => {
    httpRequests++;
    res.setHeader(SIMULATED_HEADER, "batch-decoder");
    open.add(res);
    res.on("close", () => open.delete(res));
    if (req.method !== "POST" || req.url?.split("?")[0] !== "/v1/chat/completions") {
      res
        .writeHead(404, { "content-type": "application/json" })
        .end(JSON.stringify({ error: { message: "no route" } }));
      return;
    }
    let text = "";
    req.setEncoding("utf8");
    req.on("data", (d: string) => {
      text += d;
    });
    req.on("end", () => {
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(text);
      } catch {
        res
          .writeHead(400, { "content-type": "application/json" })
          .end(JSON.stringify({ error: { message: "not JSON" } }));
        return;
      }
      arrivals.push(lastMessageHead(body.messages));
      const maxTokens = Math.max(1, Number(body.max_tokens ?? body.max_completion_tokens ?? 32) | 0);
      const promptTokens = promptTokensOf(body.messages);
      const includeUsage = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
      const responseId = `chatcmpl-batch-${++id}`;
      const model = String(body.model ?? "batch");
      const chunk = (delta: Record<string, unknown>, finish: string | null) =>
        `data: ${JSON.stringify({ id: responseId, object: "chat.completion.chunk", created: 0, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      // The head goes at once, as streaming servers send it: a stream cut later is cut mid-response.
      res.flushHeaders();
      const cancel = decoder.submit(maxTokens, {
        token(index) {
          res.write(chunk(index === 1 ? { role: "assistant", content: " tok" } : { content: " tok" }, null));
        },
        end(how, _atMs, tokens) {
          if (how === "close") {
            // The connection dies mid-stream (once the tokens sent are out), no finish, no usage: as a crashed worker's.
            res.write("", () => res.destroy());
            return;
          }
          if (how === "error") {
            res.end(`event: error\ndata: ${JSON.stringify({ message: DECODER_ERROR_MESSAGE })}\n\n`);
            return;
          }
          let tail = chunk({}, tokens < maxTokens ? "stop" : "length");
          if (includeUsage) {
            const usage = {
              prompt_tokens: promptTokens,
              completion_tokens: tokens,
              total_tokens: promptTokens + tokens,
            };
            tail += `data: ${JSON.stringify({ id: responseId, object: "chat.completion.chunk", created: 0, model, choices: [], usage })}\n\n`;
          }
          res.end(`${tail}data: [DONE]\n\n`);
        },
      });
      // The client went away: its sequence leaves the batch (or the queue).
      res.on("close", () => {
        if (!res.writableFinished) cancel();
      });
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    decoder,
    httpRequests: () => httpRequests,
    arrivals: () => [...arrivals],
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of open) res.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
