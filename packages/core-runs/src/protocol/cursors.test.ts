import { describe, expect, it } from "vitest";
import {
  AGENT_TOOL_CURSORS_PARAM,
  type AgentToolCursors,
  encodeAgentToolCursors,
  parseAgentToolCursors,
} from "./cursors.js";

describe("agent-tool cursors", () => {
  it("round-trips cursors through a URL query", () => {
    const cursors: AgentToolCursors = {
      "run-1": { sequence: 0, revision: 1 },
      "agent-tool:call_ABC": { sequence: 42, revision: 3 },
      "ünïcødé & = ?": { sequence: Number.MAX_SAFE_INTEGER, revision: 9 },
    };
    const url = new URL("https://example.test/agents/parent/1");
    url.searchParams.set(AGENT_TOOL_CURSORS_PARAM, encodeAgentToolCursors(cursors));
    const decoded = parseAgentToolCursors(new URL(url.toString()).searchParams.get(AGENT_TOOL_CURSORS_PARAM));
    expect(decoded).toEqual(cursors);
  });

  it("encodes compactly as [runId, sequence, revision] triples", () => {
    expect(encodeAgentToolCursors({ a: { sequence: 1, revision: 2 } })).toBe('[["a",1,2]]');
    expect(encodeAgentToolCursors({})).toBe("[]");
  });

  it("decodes an empty list as no cursors", () => {
    expect(parseAgentToolCursors("[]")).toEqual({});
  });

  it("keeps a runId such as __proto__ as data", () => {
    const decoded = parseAgentToolCursors('[["__proto__",1,1],["constructor",2,2]]');
    expect(Object.getOwnPropertyDescriptor(decoded, "__proto__")?.value).toEqual({ sequence: 1, revision: 1 });
    expect(decoded?.["constructor"]).toEqual({ sequence: 2, revision: 2 });
    expect(Object.keys(decoded ?? {})).toEqual(["__proto__", "constructor"]);
  });

  it("returns null for an empty string, null and undefined", () => {
    expect(parseAgentToolCursors("")).toBeNull();
    expect(parseAgentToolCursors(null)).toBeNull();
    expect(parseAgentToolCursors(undefined)).toBeNull();
  });

  it("returns null for malformed values", () => {
    for (const value of [
      "{",
      "not json",
      "null",
      "{}",
      '{"a":[1,2]}',
      '"a"',
      "1",
      "[1]",
      '[["a",1]]',
      '[["a",1,2,3]]',
      '[["",1,2]]',
      "[[1,1,2]]",
      '[["a","1",2]]',
      '[["a",1,"2"]]',
      '[["a",1,null]]',
      '[["a",1,2],"b"]',
      '[{"runId":"a","sequence":1,"revision":2}]',
    ]) {
      expect(parseAgentToolCursors(value), value).toBeNull();
    }
  });

  it("returns null for negative or fractional numbers", () => {
    for (const value of [
      '[["a",-1,2]]',
      '[["a",1,-2]]',
      '[["a",1.5,2]]',
      '[["a",1,2.5]]',
      '[["a",1e300,2]]',
      '[["a",9007199254740992,2]]',
    ]) {
      expect(parseAgentToolCursors(value), value).toBeNull();
    }
  });
});
