/**
 * @module The floor client: the least a correct streaming client does per chunk, which kneeboard's
 * client is measured against. Imported by the in-process bench, and run by itself as a plain-JavaScript
 * process (bundled by `command.ts`) with `URL CONCURRENCY REQUESTS MAX_TOKENS`, printing its chunks as JSON.
 */
import { Agent, request } from "node:http";

/** One streamed request as the yardstick sees it. */
interface MinimalResult {
  chunks: number;
  startMs: number;
  firstMs: number | null;
  /** Reused sockets found closed by the server (the request then went again on a one-off connection). */
  stale: number;
}

/**
 * The yardstick: the least a correct streaming client does per chunk. One keep-alive agent, the
 * body read as UTF-8 text, lines split by hand, each `data:` line parsed as JSON, content counted;
 * a reused socket the server had closed (reset before any response) sends the request again once,
 * on a one-off connection, as Node's docs of `reusedSocket` advise.
 */
function minimalSend(agent: Agent | false, url: URL, body: string, stale = 0): Promise<MinimalResult> {
  return new Promise((resolve, reject) => {
    const result: MinimalResult = { chunks: 0, startMs: 0, firstMs: null, stale };
    const req = request(
      url,
      {
        method: "POST",
        agent,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        res.setEncoding("utf8");
        let rest = "";
        res.on("data", (text: string) => {
          const now = performance.now();
          const buffer = rest + text;
          let from = 0;
          for (let nl = buffer.indexOf("\n"); nl !== -1; nl = buffer.indexOf("\n", from)) {
            if (buffer.startsWith("data: {", from)) {
              const chunk = JSON.parse(buffer.slice(from + 6, nl));
              if (chunk.choices?.[0]?.delta?.content) {
                result.chunks++;
                result.firstMs ??= now;
              }
            }
            from = nl + 1;
          }
          rest = buffer.slice(from);
        });
        res.on("end", () => resolve(result));
        res.on("error", reject);
      },
    );
    req.on("error", (error: NodeJS.ErrnoException) => {
      if (req.reusedSocket && error.code === "ECONNRESET" && stale === 0)
        minimalSend(false, url, body, 1).then(resolve, reject);
      else reject(error);
    });
    result.startMs = performance.now();
    req.end(body);
  });
}

/** A closed loop of the yardstick: `concurrency` in flight until `requests` have finished. */
export async function minimalLoop(url: string, concurrency: number, requests: number, maxTokens: number) {
  const agent = new Agent({ keepAlive: true });
  const target = new URL(`${url}/chat/completions`);
  let next = 0;
  let chunks = 0;
  let stale = 0;
  const worker = async () => {
    while (next < requests) {
      const index = next++;
      const body = JSON.stringify({
        model: "bench",
        messages: [{ role: "user", content: `${index} ${"lorem ".repeat(40)}` }],
        max_tokens: maxTokens,
        stream: true,
        stream_options: { include_usage: true },
      });
      const result = await minimalSend(agent, target, body);
      chunks += result.chunks;
      stale += result.stale;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  agent.destroy();
  return { chunks, stale };
}

// Run as a process: the arguments' loop, then its chunk count on stdout.
if (process.argv[2]?.startsWith("http")) {
  const [url, concurrency, requests, maxTokens] = process.argv.slice(2) as [string, string, string, string];
  const result = await minimalLoop(url, Number(concurrency), Number(requests), Number(maxTokens));
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
