import { describe, expect, it } from "vitest";
import {
  encodeAgentToolPosition,
  MAX_AGENT_TOOL_PAGE,
  parseAgentToolPageFrame,
  parseAgentToolPageLimit,
  parseAgentToolPageRequest,
  parseAgentToolPosition,
} from "./replay-pages.js";

describe("paged replay's wire values", () => {
  it("round-trips a position, run ids with colons included, and refuses what is not one", () => {
    const position = { startedAt: 1_700_000_000_000, runId: "agent-tool:call:1" };
    expect(parseAgentToolPosition(encodeAgentToolPosition(position))).toEqual(position);
    for (const bad of ["", ":r1", "x:r1", "12:", "1.5:r1", 12, null]) expect(parseAgentToolPosition(bad)).toBeNull();
  });

  it("takes a page size from a URL value or a number, capped, and refuses anything else", () => {
    expect(parseAgentToolPageLimit("50")).toBe(50);
    expect(parseAgentToolPageLimit(20)).toBe(20);
    expect(parseAgentToolPageLimit("100000")).toBe(MAX_AGENT_TOOL_PAGE);
    for (const bad of [null, "", "0", "-3", "2.5", "ten", {}]) expect(parseAgentToolPageLimit(bad)).toBeNull();
  });

  it("reads a page request and a page frame, and returns null (never throws) for malformed ones", () => {
    const request = { type: "agent-tool-page-request", before: "5:r5", limit: 10 };
    expect(parseAgentToolPageRequest(JSON.stringify(request))).toEqual({
      ...request,
      position: { startedAt: 5, runId: "r5" },
    });
    for (const bad of [
      "{",
      "null",
      JSON.stringify({ ...request, before: "r5" }),
      JSON.stringify({ ...request, limit: 0 }),
    ]) {
      expect(parseAgentToolPageRequest(bad)).toBeNull();
    }
    expect(
      parseAgentToolPageFrame(JSON.stringify({ type: "agent-tool-page", runs: 2, hasOlder: true, before: "5:r5" })),
    ).toEqual({ type: "agent-tool-page", runs: 2, hasOlder: true, before: "5:r5" });
    expect(parseAgentToolPageFrame(JSON.stringify({ type: "agent-tool-page", runs: 1, hasOlder: false }))).toEqual({
      type: "agent-tool-page",
      runs: 1,
      hasOlder: false,
    });
    // A refused request's answer says when to ask again (a bad value is left out).
    const refused = { type: "agent-tool-page", runs: 0, hasOlder: true, before: "5:r5", retryAfterMs: 1000 };
    expect(parseAgentToolPageFrame(JSON.stringify(refused))).toEqual(refused);
    expect(parseAgentToolPageFrame(JSON.stringify({ ...refused, retryAfterMs: "soon" }))).toEqual({
      type: "agent-tool-page",
      runs: 0,
      hasOlder: true,
      before: "5:r5",
    });
    // Older runs without where they start, or another frame type: not a page frame.
    expect(parseAgentToolPageFrame(JSON.stringify({ type: "agent-tool-page", runs: 1, hasOlder: true }))).toBeNull();
    expect(parseAgentToolPageFrame(JSON.stringify({ type: "agent-tool-event" }))).toBeNull();
  });
});
