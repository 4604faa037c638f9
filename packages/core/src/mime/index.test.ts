/** @module The shared content-type table. */
import { describe, expect, it } from "vitest";
import { contentTypeOf, DEFAULT_CONTENT_TYPE } from "./index.ts";

describe("contentTypeOf", () => {
  it("names one type per extension, CSV with its charset", () => {
    expect(contentTypeOf("data/runs.csv")).toBe("text/csv; charset=utf-8");
    expect(contentTypeOf("index.html")).toBe("text/html; charset=utf-8");
    expect(contentTypeOf("feeds/alerts.xml")).toBe("application/atom+xml");
    expect(contentTypeOf("/abs/path/chart.SVG")).toBe("image/svg+xml");
  });

  it("falls back for unknown, absent or dot-file extensions", () => {
    expect(contentTypeOf("blob.bin")).toBe(DEFAULT_CONTENT_TYPE);
    expect(contentTypeOf("dir.v2/README")).toBe(DEFAULT_CONTENT_TYPE);
    expect(contentTypeOf(".hidden", "text/plain")).toBe("text/plain");
  });
});
