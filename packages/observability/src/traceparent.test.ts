import { parseTraceParent } from "@opentelemetry/core";
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

describe("traceparent, held to OpenTelemetry's W3C propagator", () => {
  // `@opentelemetry/core`'s `parseTraceParent` is what `W3CTraceContextPropagator.extract` reads a header with; ours
  // must read every header as it does (docs/decisions/2026-12-05-traceparent.md says why we keep our own).
  const versions = ["00", "01", "cc", "fe", "ff", "0g", "0"];
  const traceIds = [traceId, "0".repeat(32), traceId.toUpperCase(), traceId.slice(1), `${traceId}0`];
  const spanIds = [spanId, "0".repeat(16), spanId.toUpperCase(), spanId.slice(1)];
  const flags = ["00", "01", "ff", "1", "0x"];
  const tails = ["", "-", "-extra", "-00"];
  const headers = versions.flatMap((version) =>
    traceIds.flatMap((trace) =>
      spanIds.flatMap((span) =>
        flags.flatMap((flag) => tails.map((tail) => `${version}-${trace}-${span}-${flag}${tail}`)),
      ),
    ),
  );
  headers.push(
    ` 00-${traceId}-${spanId}-01`,
    `00-${traceId}-${spanId}-01 `,
    `  00-${traceId}-${spanId}-01`,
    "",
    "-",
    "00---",
  );

  it(`reads ${headers.length} headers as parseTraceParent does`, () => {
    const differences = headers.filter((header) => {
      const theirs = parseTraceParent(header);
      const ours = parseTraceparent(header);
      return JSON.stringify(ours ?? null) !== JSON.stringify(theirs ? { ...theirs, isRemote: true } : null);
    });
    expect(differences).toEqual([]);
    // Both accept some and refuse others: the comparison is not of two functions that refuse everything.
    expect(headers.filter((header) => parseTraceparent(header) !== undefined).length).toBeGreaterThan(20);
  });
});
