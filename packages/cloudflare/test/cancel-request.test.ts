// What a cancel request's body may say (Node): nothing, or { "reason": "…" }; anything else is refused with why.
import { describe, expect, it } from "vitest";
import { MAX_CANCEL_BODY_BYTES, MAX_CANCEL_REASON_LENGTH, readCancelRequest } from "../src/parent/cancel-request.js";

const post = (body?: string) =>
  new Request("https://host/agents/parent/p/cancel/r1", { method: "POST", ...(body === undefined ? {} : { body }) });

describe("readCancelRequest", () => {
  it("reads no body, blank, or an object without a reason as no reason (the registry's default)", async () => {
    for (const body of [undefined, "", "  \n", "{}"]) {
      expect(await readCancelRequest(post(body))).toEqual({ ok: true, reason: undefined });
    }
  });

  it("reads the reason, trimmed", async () => {
    expect(await readCancelRequest(post(JSON.stringify({ reason: "  Stopped by Ana \n" })))).toEqual({
      ok: true,
      reason: "Stopped by Ana",
    });
    const longest = "x".repeat(MAX_CANCEL_REASON_LENGTH);
    expect(await readCancelRequest(post(JSON.stringify({ reason: longest })))).toEqual({ ok: true, reason: longest });
  });

  it("refuses what is not JSON, not an object, or a reason that is not a short non-empty string, saying why", async () => {
    const cases: Array<[string, RegExp]> = [
      ["reason=x", /not JSON/],
      ["[1]", /not a JSON object/],
      ["null", /not a JSON object/],
      ['"Stop"', /not a JSON object/],
      ['{"reason":42}', /non-empty string/],
      ['{"reason":"   "}', /non-empty string/],
      [JSON.stringify({ reason: "x".repeat(MAX_CANCEL_REASON_LENGTH + 1) }), /longer than 500/],
    ];
    for (const [body, error] of cases) {
      const read = await readCancelRequest(post(body));
      expect(read.ok).toBe(false);
      expect(read.ok ? "" : read.error).toMatch(error);
    }
  });
});

describe("readCancelRequest and large bodies", () => {
  it("refuses a body over MAX_CANCEL_BODY_BYTES with 413, whether it says its length or streams", async () => {
    const big = JSON.stringify({ reason: "x", padding: "y".repeat(MAX_CANCEL_BODY_BYTES) });
    const declared = new Request("https://host/agents/parent/p/cancel/r1", {
      method: "POST",
      headers: { "content-length": String(big.length) },
      body: big,
    });
    const bytes = new TextEncoder().encode(big);
    const streamed = new Request("https://host/agents/parent/p/cancel/r1", {
      method: "POST",
      body: new ReadableStream<Uint8Array>({
        start(controller) {
          for (let at = 0; at < bytes.length; at += 4096) controller.enqueue(bytes.slice(at, at + 4096));
          controller.close();
        },
      }),
      duplex: "half",
    } as RequestInit);
    for (const request of [declared, streamed]) {
      expect(await readCancelRequest(request)).toEqual({
        ok: false,
        status: 413,
        error: `The request body is larger than ${MAX_CANCEL_BODY_BYTES} bytes`,
      });
    }
  });

  it("reads a body of exactly the limit", async () => {
    const reason = "r";
    const fill = MAX_CANCEL_BODY_BYTES - JSON.stringify({ reason, padding: "" }).length;
    const body = JSON.stringify({ reason, padding: "y".repeat(fill) });
    expect(body.length).toBe(MAX_CANCEL_BODY_BYTES);
    expect(await readCancelRequest(post(body))).toEqual({ ok: true, reason: "r" });
  });
});
