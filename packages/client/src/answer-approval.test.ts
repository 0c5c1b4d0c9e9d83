import { describe, expect, it } from "vitest";
import { answerAgentToolApproval } from "./answer-approval.js";

const EVENTS = "wss://host/agents/assistant/default?agentToolCursors=x";

/** A `fetch` that records its calls and answers with `status` and `body`. */
function fakeFetch(status: number, body: string) {
  const calls: Array<{ url: string; init: RequestInit | undefined }> = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    calls.push({ url: String(input), init });
    return new Response(body, { status, headers: { "content-type": "application/json" } });
  };
  return { calls, fetch };
}

describe("answerAgentToolApproval", () => {
  it("POSTs the answer as JSON to the parent's approve route, and resolves whether it was answered", async () => {
    const { calls, fetch } = fakeFetch(200, JSON.stringify({ answered: true }));
    const answered = await answerAgentToolApproval({
      url: EVENTS,
      runId: "agent-tool:c1",
      approvalId: "ap-1",
      approved: false,
      reason: "Not that file",
      fetch,
    });
    expect(answered).toBe(true);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.url).toBe("https://host/agents/assistant/default/approve/agent-tool%3Ac1/ap-1");
    expect(calls[0]?.init?.method).toBe("POST");
    expect(new Headers(calls[0]?.init?.headers).get("content-type")).toBe("application/json");
    expect(JSON.parse(String(calls[0]?.init?.body))).toEqual({ approved: false, reason: "Not that file" });
  });

  it("sends no reason when none is given, and resolves false for an approval already answered (or unknown)", async () => {
    const { calls, fetch } = fakeFetch(200, JSON.stringify({ answered: false }));
    expect(await answerAgentToolApproval({ url: EVENTS, runId: "r1", approvalId: "ap-1", approved: true, fetch })).toBe(
      false,
    );
    expect(JSON.parse(String(calls[0]?.init?.body))).toEqual({ approved: true });
  });

  it("rejects with the status and the server's words on any other answer than 2xx", async () => {
    const notFound = fakeFetch(404, "No run r9 here");
    await expect(
      answerAgentToolApproval({ url: EVENTS, runId: "r9", approvalId: "ap-1", approved: true, fetch: notFound.fetch }),
    ).rejects.toThrow("Answering the approval failed: HTTP 404 — No run r9 here");
    const badBody = fakeFetch(400, "reason: at most 500 characters");
    await expect(
      answerAgentToolApproval({
        url: EVENTS,
        runId: "r1",
        approvalId: "ap-1",
        approved: false,
        reason: "x".repeat(501),
        fetch: badBody.fetch,
      }),
    ).rejects.toThrow(/HTTP 400 — reason: at most 500 characters/);
  });

  it("rejects a 2xx answer that is not the route's (no `answered` boolean), rather than guessing", async () => {
    const html = fakeFetch(200, "<!doctype html>");
    await expect(
      answerAgentToolApproval({ url: EVENTS, runId: "r1", approvalId: "ap-1", approved: true, fetch: html.fetch }),
    ).rejects.toThrow(/Answering the approval failed: not the approve route's answer/);
  });

  it("rejects when the network fails, with what failed", async () => {
    const fetch = async () => {
      throw new TypeError("Failed to fetch");
    };
    await expect(
      answerAgentToolApproval({ url: EVENTS, runId: "r1", approvalId: "ap-1", approved: true, fetch }),
    ).rejects.toThrow("Answering the approval failed: Failed to fetch");
  });
});
