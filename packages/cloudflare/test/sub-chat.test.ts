// Talking to a child through its parent (workerd): `POST …/sub/<agentType>/<runId>/chat` sends a message into the
// conversation of one of the parent's finished runs and streams the child's answer (the AI SDK's UI message stream);
// `GET …/sub/<agentType>/<runId>/messages` reads that conversation. Only the parent's own runs, only once a run has
// ended, only with the parent's authorization (a run read token reads, it does not talk), and held to the limits of the
// parent's own chat: its message size, its queue, and no turn for a client that went away (issue 36).
import type { UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { MAX_SUB_CHAT_BODY_BYTES } from "../src/parent/sub-chat-request.js";
import { hostWorkerPerTest, streamOf } from "./host-worker-harness.js";

const SECRET = "test-secret-of-at-least-16-characters";
const KEY = "parent-key";
const base = "/agents/parent/talk";
const authorized = { authorization: `Bearer ${KEY}` };

type RunInfo = { runId: string; agentType: string; status: string };
type Message = { id: string; role: string; parts: Array<{ type: string; text?: string }> };

const start = hostWorkerPerTest("agent-tools-sub-chat-");
const textOf = (message: Message | undefined) =>
  (message?.parts ?? []).flatMap((part) => (part.type === "text" ? [part.text ?? ""] : [])).join("");

/** The chunks of a UI message stream response (server-sent events, `data: <json>` each, ended by `[DONE]`). */
async function chunksOf(response: { text(): Promise<string> }): Promise<UIMessageChunk[]> {
  const lines = (await response.text()).split("\n").filter((line) => line.startsWith("data: "));
  const data = lines.map((line) => line.slice("data: ".length));
  expect(data.at(-1)).toBe("[DONE]");
  return data.slice(0, -1).map((text) => JSON.parse(text) as UIMessageChunk);
}
const answerOf = (chunks: UIMessageChunk[]) =>
  chunks.flatMap((chunk) => (chunk.type === "text-delta" ? [chunk.delta] : [])).join("");

async function withFinishedRun() {
  const running = await start({ AGENT_TOOLS_RUN_TOKEN_SECRET: SECRET, PARENT_KEY: KEY });
  await running.fetchJson(`${base}/test/send?text=hello`, { method: "POST", headers: authorized });
  const [run] = await running.fetchJson<RunInfo[]>(`${base}/runs`, { headers: authorized });
  expect(run?.status).toBe("completed");
  const path = `${base}/sub/Echo/${encodeURIComponent(run?.runId ?? "")}`;
  return { running, path };
}

/**
 * A finished run `r1` (one word: it completes), then a first message into its conversation whose answer holds after
 * two words until `POST /test/echo-release`: answered once its turn has started.
 */
async function withHeldAnswer() {
  const running = await start({ ECHO_HOLD_AFTER: "2" });
  await running.fetchJson(`${base}/test/start?runId=r1&text=hi`, { method: "POST" });
  await expect.poll(async () => (await running.fetchJson<RunInfo[]>(`${base}/runs`))[0]?.status).toBe("completed");
  const post = (text: string) =>
    running.fetch(`${base}/sub/Echo/r1/chat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ message: text }),
    });
  const first = await post("one two");
  expect(first.status).toBe(200);
  const release = async () => {
    await running.fetch("/test/echo-release", { method: "POST" });
    expect(answerOf(await chunksOf(first))).toBe("#2 one two");
  };
  return { running, post, release };
}

describe("talking to a child through the parent", () => {
  it("sends a message into the run's conversation and streams the answer; the conversation keeps both", async () => {
    const { running, path } = await withFinishedRun();
    const response = await running.fetch(`${path}/chat`, {
      method: "POST",
      headers: { ...authorized, "content-type": "application/json" },
      body: JSON.stringify({ message: "and again" }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1");
    // The Echo counts the user messages it was given: the run's input, then this one.
    expect(answerOf(await chunksOf(response))).toBe("#2 and again");

    // The AI SDK's chat request body works too (a stock useChat with DefaultChatTransport): its last message is sent.
    const viaChat = await running.fetch(`${path}/chat`, {
      method: "POST",
      headers: { ...authorized, "content-type": "application/json" },
      body: JSON.stringify({
        id: "c1",
        trigger: "submit-message",
        messages: [{ id: "u3", role: "user", parts: [{ type: "text", text: "third" }] }],
      }),
    });
    expect(answerOf(await chunksOf(viaChat))).toBe("#3 third");

    const messages = await running.fetchJson<Message[]>(`${path}/messages`, { headers: authorized });
    expect(messages.map((message) => [message.role, textOf(message)])).toEqual([
      ["user", "hello"],
      ["assistant", "#1 hello"],
      ["user", "and again"],
      ["assistant", "#2 and again"],
      ["user", "third"],
      ["assistant", "#3 third"],
    ]);
    // The run itself is unchanged.
    const drill = await running.fetchJson<{ messages: Message[] }>(path, { headers: authorized });
    expect(drill.messages).toHaveLength(2);
  });

  it("refuses without authorization, with only a run read token, for another run, and a bad body", async () => {
    const { running, path } = await withFinishedRun();
    const post = (target: string, body: string, headers: Record<string, string> = authorized) =>
      running.fetch(target, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body });
    const good = JSON.stringify({ message: "hi" });
    expect((await post(`${path}/chat`, good, {})).status).toBe(401);
    const { token } = await running.fetchJson<{ token: string }>(`${path}/token`, { headers: authorized });
    // A run read token opens reading, not talking: the parent's own authorization decides, and refuses.
    expect((await post(`${path}/chat?token=${token}`, good, {})).status).toBe(401);
    // The token does read the conversation.
    expect((await running.fetch(`${path}/messages?token=${token}`)).status).toBe(200);
    expect((await post(`${base}/sub/Echo/guessed/chat`, good)).status).toBe(404);
    // Streamed (no content-length), one byte over the limit: the parent reads it all and refuses it. (A body that
    // says its length is refused unread — `cancel-request.test.ts` in Node; over HTTP the sender may then still be
    // writing when the connection closes, which a client sees as a reset instead of the 413.)
    const huge = await running.fetch(`${path}/chat`, {
      method: "POST",
      headers: { ...authorized, "content-type": "application/json" },
      body: streamOf(JSON.stringify({ message: "y".repeat(MAX_SUB_CHAT_BODY_BYTES) })),
      duplex: "half",
    });
    expect(huge.status).toBe(413);
    expect(((await huge.json()) as { code: string }).code).toBe("LIMIT_EXCEEDED");
    for (const body of ["", "{}", '{"message":42}', '{"messages":[]}', "not json"]) {
      const refused = await post(`${path}/chat`, body);
      expect(refused.status, body).toBe(400);
      expect(((await refused.json()) as { code: string }).code).toBe("INVALID_ARGUMENT");
    }
    const messages = await running.fetchJson<Message[]>(`${path}/messages`, { headers: authorized });
    expect(messages).toHaveLength(2);
  });

  it("refuses a message over the parent chat's message limit with 413 and stores nothing", async () => {
    const { running, path } = await withFinishedRun();
    // 1.5 MB and 3.9 MB: both fit the body limit, neither the 1 MB a message of the parent's own chat may have.
    for (const size of [1_500_000, 3_900_000]) {
      const response = await running.fetch(`${path}/chat`, {
        method: "POST",
        headers: { ...authorized, "content-type": "application/json" },
        body: JSON.stringify({ message: "y".repeat(size) }),
      });
      expect(response.status, `${size}`).toBe(413);
      const refusal = (await response.json()) as { code: string; error: string };
      expect(refusal.code).toBe("LIMIT_EXCEEDED");
      expect(refusal.error).toMatch(/The message is too large .*the limit is 1\.0 MB/);
    }
    const messages = await running.fetchJson<Message[]>(`${path}/messages`, { headers: authorized });
    expect(messages).toHaveLength(2);
  });

  it("queues at most the parent chat's maxQueuedSends messages behind the one answered, refusing more with 429", async () => {
    const { running, post, release } = await withHeldAnswer();
    // 12 more while it holds: 8 (the default maxQueuedSends) wait, 4 are refused — whatever order they come in.
    const answers: Array<{ status: number; retryAfter: string | null; body: string }> = [];
    const posts = Array.from({ length: 12 }, (_, index) =>
      post(`more ${index}`).then(async (response) => {
        const answer = { status: response.status, retryAfter: response.headers.get("retry-after"), body: "" };
        answers.push(answer);
        answer.body = await response.text();
        return answer;
      }),
    );
    await expect.poll(() => answers.length, { timeout: 30_000 }).toBe(4);
    for (const refused of answers) {
      expect(refused.status).toBe(429);
      expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    }
    await expect.poll(() => answers.every((answer) => answer.body !== "")).toBe(true);
    for (const refused of answers) {
      expect(JSON.parse(refused.body)).toMatchObject({
        code: "LIMIT_EXCEEDED",
        error: expect.stringMatching(/waiting/),
      });
    }
    await release();
    const settled = await Promise.all(posts);
    expect(settled.filter((answer) => answer.status === 200)).toHaveLength(8);
    const messages = await running.fetchJson<Message[]>(`${base}/sub/Echo/r1/messages`);
    expect(messages).toHaveLength(2 + 2 * 9);
  });

  it("drops a message whose client went away before its turn: it never runs and nothing of it is stored", async () => {
    const { running, post, release } = await withHeldAnswer();
    // In the Worker: a message `gone` posted while the first holds, its request cancelled once it waits.
    const abandoned = await running.fetchJson<{ queued: boolean; dropped: boolean }>(
      `/test/sub-chat-abandon?parent=talk&runId=r1&messageId=gone`,
      { method: "POST" },
    );
    expect(abandoned).toEqual({ queued: true, dropped: true });
    await release();
    // A message after it is answered as the next: the dropped one never ran.
    const next = await post("three");
    expect(answerOf(await chunksOf(next))).toBe("#3 three");
    const messages = await running.fetchJson<Message[]>(`${base}/sub/Echo/r1/messages`);
    expect(messages.map(textOf)).toEqual(["hi", "#1 hi", "one two", "#2 one two", "three", "#3 three"]);
  });

  it("refuses a run still running with 409", async () => {
    // The child says two words, then holds until cancelled: the run is still running when the message comes.
    const running = await start({ ECHO_HOLD_AFTER: "2" });
    const text = encodeURIComponent("one two three four five six seven eight nine ten eleven twelve");
    await running.fetchJson(`${base}/test/start?runId=live&text=${text}`, { method: "POST" });
    const response = await running.fetch(`${base}/sub/Echo/live/chat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ message: "hi" }),
    });
    expect(response.status).toBe(409);
    expect(((await response.json()) as { error: string }).error).toMatch(/still running/);
  });
});
