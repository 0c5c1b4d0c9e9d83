import { describe, expect, it } from "vitest";
import { isAgentChatDisconnect } from "./chat-disconnect.js";

describe("isAgentChatDisconnect", () => {
  it("is true for the AI SDK's network errors only", () => {
    expect(isAgentChatDisconnect(new TypeError("WebSocket chat network connection closed (code 1006)."))).toBe(true);
    expect(isAgentChatDisconnect(new TypeError("Failed to fetch"))).toBe(true);
    expect(isAgentChatDisconnect(new Error("WebSocket chat network connection closed"))).toBe(false);
    expect(isAgentChatDisconnect(new TypeError("Cannot read properties of undefined"))).toBe(false);
    expect(isAgentChatDisconnect("network")).toBe(false);
  });
});
