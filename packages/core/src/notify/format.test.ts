import { describe, expect, it } from "vitest";
import { makeAlert } from "./alert.fixture.ts";
import { alertLines } from "./format.ts";

describe("alertLines", () => {
  it("names the target, and the scenario when it is not chat", () => {
    expect(alertLines(makeAlert())[2]).toBe("Regression open (warning) on Acme Llama 70B [acme-llama-70b]");
    expect(alertLines(makeAlert({ scenario: "rag" }))[2]).toBe(
      "Regression open (warning) on Acme Llama 70B [acme-llama-70b, scenario rag]",
    );
  });
});
