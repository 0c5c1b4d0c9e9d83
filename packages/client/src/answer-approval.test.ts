import { MAX_APPROVAL_REASON_LENGTH } from "@agent-tools/core-runs/protocol";
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

  it("refuses a reason over MAX_APPROVAL_REASON_LENGTH before sending anything; a blank reason is sent as none", async () => {
    const { calls, fetch } = fakeFetch(200, JSON.stringify({ answered: true }));
    const answer = (reason: string) =>
      answerAgentToolApproval({ url: EVENTS, runId: "r1", approvalId: "ap-1", approved: false, reason, fetch });
    await expect(answer("x".repeat(MAX_APPROVAL_REASON_LENGTH + 1))).rejects.toThrow(
      `the reason is longer than ${MAX_APPROVAL_REASON_LENGTH} characters`,
    );
    expect(calls).toHaveLength(0);
    // Surrounding spaces do not count (the server trims them too); a reason of spaces only is no reason.
    expect(await answer(`  ${"y".repeat(MAX_APPROVAL_REASON_LENGTH)}  `)).toBe(true);
    expect(JSON.parse(String(calls[0]?.init?.body))).toEqual({
      approved: false,
      reason: "y".repeat(MAX_APPROVAL_REASON_LENGTH),
    });
    expect(await answer("   ")).toBe(true);
    expect(JSON.parse(String(calls[1]?.init?.body))).toEqual({ approved: false });
  });

  it("sends a reason without its control characters (a line break is a space); none left is no reason", async () => {
    const { calls, fetch } = fakeFetch(200, JSON.stringify({ answered: true }));
    const answer = (reason: string) =>
      answerAgentToolApproval({ url: EVENTS, runId: "r1", approvalId: "ap-1", approved: false, reason, fetch });
    expect(await answer("\u001bNot\u0000 that\u0007 file,\r\nplease\u202e")).toBe(true);
    expect(JSON.parse(String(calls[0]?.init?.body))).toEqual({ approved: false, reason: "Not that file, please" });
    expect(await answer("\u0007\n\u202e")).toBe(true);
    expect(JSON.parse(String(calls[1]?.init?.body))).toEqual({ approved: false });
  });

  it("rejects with the status and the server's words on any other answer than 2xx", async () => {
    const notFound = fakeFetch(404, "No run r9 here");
    await expect(
      answerAgentToolApproval({ url: EVENTS, runId: "r9", approvalId: "ap-1", approved: true, fetch: notFound.fetch }),
    ).rejects.toThrow("Answering the approval failed: HTTP 404 — No run r9 here");
    const badBody = fakeFetch(400, "unknown field approve");
    await expect(
      answerAgentToolApproval({
        url: EVENTS,
        runId: "r1",
        approvalId: "ap-1",
        approved: false,
        reason: "x",
        fetch: badBody.fetch,
      }),
    ).rejects.toThrow(/HTTP 400 — unknown field approve/);
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
