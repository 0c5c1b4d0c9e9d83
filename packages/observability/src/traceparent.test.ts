import { describe, expect, it } from "vitest";
import { formatTraceparent, parseTraceparent } from "./traceparent.js";

const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
const spanId = "00f067aa0ba902b7";

describe("traceparent", () => {
  it("formats and parses a W3C traceparent", () => {
    const header = formatTraceparent({ traceId, spanId, traceFlags: 1 });
    expect(header).toBe(`00-${traceId}-${spanId}-01`);
    expect(parseTraceparent(header)).toEqual({ traceId, spanId, traceFlags: 1, isRemote: true });
    expect(parseTraceparent(` 00-${traceId}-${spanId}-00 `)).toEqual({
      traceId,
      spanId,
      traceFlags: 0,
      isRemote: true,
    });
  });

  it("accepts a future version with more fields", () => {
    expect(parseTraceparent(`01-${traceId}-${spanId}-01-extra`)?.spanId).toBe(spanId);
  });

  it.each([
    "",
    "garbage",
    `00-${"0".repeat(32)}-${spanId}-01`,
    `00-${traceId}-${"0".repeat(16)}-01`,
    `ff-${traceId}-${spanId}-01`,
    `00-${traceId}-${spanId}-01-extra`,
    `00-${traceId.toUpperCase()}-${spanId}-01`,
    `00-${traceId}-${spanId}`,
  ])("rejects %j", (header) => {
    expect(parseTraceparent(header)).toBeUndefined();
  });
});
