/** @module A static file server for a built site on 127.0.0.1 (`npm run preview`, browser tests). */
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join, normalize, resolve, sep } from "node:path";
import { contentTypeOf } from "@kneeboard/core/mime";

export interface StaticServer {
  url: string;
  close(): Promise<void>;
}

/** Serves dir; `/x/` answers with `/x/index.html`. Paths that would leave dir answer 404. */
export async function serveStatic(dir: string, options: { port?: number } = {}): Promise<StaticServer> {
  const root = resolve(dir);
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    let file = normalize(join(root, path));
    if (file !== root && !file.startsWith(root + sep)) {
      res.writeHead(404).end("not found");
      return;
    }
    const info = await stat(file).catch(() => null);
    if (info?.isDirectory()) file = join(file, "index.html");
    const found = info?.isDirectory() ? await stat(file).catch(() => null) : info;
    if (!found?.isFile()) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    res.writeHead(200, {
      "content-type": contentTypeOf(file),
      "content-length": found.size,
    });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((ok) => server.listen(options.port ?? 0, "127.0.0.1", ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise((ok) => server.close(() => ok())),
  };
}
