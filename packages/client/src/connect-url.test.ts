import { describe, expect, it } from "vitest";
import { resolveDrillInUrl, withAgentToolBatches, withAgentToolCursors } from "./connect-url.js";
import { cursorsOf } from "./test-support.test-utils.js";

const cursors = { r1: { sequence: 4, revision: 2 }, "run/2?&": { sequence: 0, revision: 1 } };

describe("withAgentToolBatches", () => {
  it("asks for batches once, keeping the rest of the URL", () => {
    expect(withAgentToolBatches("wss://h/a")).toBe("wss://h/a?agentToolBatch=1");
    expect(withAgentToolBatches("/a?room=x&agentToolBatch=0#top")).toBe("/a?room=x&agentToolBatch=1#top");
    expect(withAgentToolBatches(withAgentToolBatches("wss://h/a"))).toBe("wss://h/a?agentToolBatch=1");
  });
});

describe("withAgentToolCursors", () => {
  it("adds the cursors parameter, which the server's codec reads back", () => {
    const url = withAgentToolCursors("wss://host/agents/assistant/default", cursors);
    expect(url.startsWith("wss://host/agents/assistant/default?agentToolCursors=")).toBe(true);
    expect(cursorsOf(url)).toEqual(cursors);
  });

  it("keeps the rest of the URL, relative ones included, and replaces a cursors parameter already there", () => {
    const encoded = encodeURIComponent('[["r1",4,2]]');
    const one = { r1: cursors.r1 };
    expect(withAgentToolCursors("/agents/a?room=x&agentToolCursors=old#top", one)).toBe(
      `/agents/a?room=x&agentToolCursors=${encoded}#top`,
    );
    expect(withAgentToolCursors("agents/a#top", one)).toBe(`agents/a?agentToolCursors=${encoded}#top`);
    expect(withAgentToolCursors("wss://h/a?agentToolCursorsX=1", one)).toBe(
      `wss://h/a?agentToolCursorsX=1&agentToolCursors=${encoded}`,
    );
  });

  it("leaves the parameter out when there are no cursors (a full replay)", () => {
    expect(withAgentToolCursors("wss://h/a", {})).toBe("wss://h/a");
    expect(withAgentToolCursors("wss://h/a?agentToolCursors=old&room=x", {})).toBe("wss://h/a?room=x");
    expect(withAgentToolCursors("wss://h/a?agentToolCursors=old", {})).toBe("wss://h/a");
  });
});

describe("resolveDrillInUrl", () => {
  it("resolves a relative address under the parent agent's route, without the parent's query", () => {
    expect(resolveDrillInUrl("wss://host/agents/assistant/default?agentToolCursors=x#f", "sub/Researcher/r%3A1")).toBe(
      "wss://host/agents/assistant/default/sub/Researcher/r%3A1",
    );
    expect(resolveDrillInUrl("wss://host/agents/assistant/default/", "sub/R/r1?token=t")).toBe(
      "wss://host/agents/assistant/default/sub/R/r1?token=t",
    );
  });

  it("keeps the parent's origin for a root-relative address, and an absolute one as it is", () => {
    expect(resolveDrillInUrl("wss://host/agents/a", "/other/sub/R/r1")).toBe("wss://host/other/sub/R/r1");
    expect(resolveDrillInUrl("wss://host/agents/a", "ws://elsewhere/x")).toBe("ws://elsewhere/x");
  });

  it("joins the strings when the parent's URL is relative", () => {
    expect(resolveDrillInUrl("/agents/assistant/default?agentToolCursors=x", "sub/R/r1")).toBe(
      "/agents/assistant/default/sub/R/r1",
    );
    expect(resolveDrillInUrl("/agents/assistant/default", "/x/sub/R/r1")).toBe("/x/sub/R/r1");
  });
});
