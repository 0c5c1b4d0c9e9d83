import { describe, expect, it } from "vitest";
import { agentChatMessagesUrl, agentChatStopUrl, agentToolApproveUrl, agentToolCancelUrl } from "./parent-chat-urls.js";

describe("agentChatMessagesUrl", () => {
  it("is the event socket's path over http(s), under /messages, without its query or fragment", () => {
    expect(agentChatMessagesUrl("wss://host/agents/assistant/default?agentToolCursors=x#y")).toBe(
      "https://host/agents/assistant/default/messages",
    );
    expect(agentChatMessagesUrl("ws://127.0.0.1:8787/agents/assistant/a%20b/")).toBe(
      "http://127.0.0.1:8787/agents/assistant/a%20b/messages",
    );
    expect(agentChatMessagesUrl("/agents/assistant/default")).toBe("/agents/assistant/default/messages");
  });
});

describe("agentChatStopUrl", () => {
  it("is the event socket's path over http(s), under /chat/stop/<turnId>, the turn id escaped", () => {
    expect(agentChatStopUrl("wss://host/agents/assistant/default?agentToolCursors=x", "t1")).toBe(
      "https://host/agents/assistant/default/chat/stop/t1",
    );
    expect(agentChatStopUrl("ws://127.0.0.1:8787/agents/assistant/a/", "a b/c")).toBe(
      "http://127.0.0.1:8787/agents/assistant/a/chat/stop/a%20b%2Fc",
    );
  });
});

describe("agentToolCancelUrl", () => {
  it("is the event socket's path over http(s), under /cancel/<runId>, the run id escaped", () => {
    expect(agentToolCancelUrl("wss://host/agents/assistant/default?agentToolCursors=x", "agent-tool:call-1")).toBe(
      "https://host/agents/assistant/default/cancel/agent-tool%3Acall-1",
    );
  });
});

describe("agentToolApproveUrl", () => {
  it("is the event socket's path over http(s), under /approve/<runId>/<approvalId>, both escaped", () => {
    expect(agentToolApproveUrl("wss://host/agents/assistant/default?agentToolCursors=x", "agent-tool:c1", "ap/1")).toBe(
      "https://host/agents/assistant/default/approve/agent-tool%3Ac1/ap%2F1",
    );
  });
});
