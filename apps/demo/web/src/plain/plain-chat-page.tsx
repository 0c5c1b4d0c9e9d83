import { type AgentToolApproval, STOPPED_TOOL_CALL_TEXT } from "@agent-tools/react";
import { useChat } from "@ai-sdk/react";
import { type UIMessage, WebSocketChatTransport } from "ai";
import { type FormEvent, useEffect, useMemo, useState } from "react";
import type { ApprovalClosedBy } from "../approval-format.js";
import { ApprovalList } from "../approval-panel.js";
import { readChatName } from "../routes.js";
import { answerApprovalAt } from "../run-actions.js";
import { looksLikeJson, StructuredText } from "../structured-value.js";

/**
 * A page on stock `useChat` alone (no event socket, no package of ours): the PlainChatAssistant streams each child's
 * answer into its tool call's part as preliminary results (`agentTool({ preliminaryResults: true })`), so a tool
 * part's `output.message` is the child's message so far, and the stored conversation, loaded on start, holds the
 * whole one. A tool in the child's tree that needs approval shows in `output.approvals`: its panel answers it with a
 * plain `POST` to the parent's approve route, and the new state arrives as the next preliminary result.
 */
export function PlainChatPage() {
  const chatName = useMemo(() => readChatName(), []);
  const base = `/agents/plain/${encodeURIComponent(chatName)}`;
  const [stored, setStored] = useState<UIMessage[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);

  useEffect(() => {
    document.title = `plain useChat · ${chatName}`;
    fetch(`${base}/messages`)
      .then((response) => (response.ok ? response.json() : Promise.reject(new Error(`HTTP ${response.status}`))))
      .then((messages: UIMessage[]) => setStored(messages))
      .catch((error: unknown) => setLoadError(error instanceof Error ? error.message : String(error)));
  }, [base, chatName]);

  return (
    <main className="plain">
      <h1>Plain useChat</h1>
      <p className="about">
        Stock <code>useChat</code> over the AI SDK's WebSocket transport: each child's answer arrives inside its tool
        call, as preliminary tool results.
      </p>
      {loadError !== null ? <p role="alert">Could not load the conversation: {loadError}</p> : null}
      {stored === null ? (
        loadError === null ? (
          <p>Loading…</p>
        ) : null
      ) : (
        <Conversation chatName={chatName} base={base} initial={stored} />
      )}
    </main>
  );
}

function Conversation(props: { chatName: string; base: string; initial: UIMessage[] }) {
  const chatUrl = `${props.base}/chat`;
  const transport = useMemo(() => new WebSocketChatTransport<UIMessage>({ url: chatUrl }), [chatUrl]);
  // `resume`: a turn in flight (after a reload too) is followed from its start, so its answer streams on at once.
  const { messages, sendMessage, status, error, stop } = useChat({
    id: props.chatName,
    messages: props.initial,
    transport,
    resume: true,
  });
  const [draft, setDraft] = useState("");
  const busy = status === "submitted" || status === "streaming";

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const text = draft.trim();
    if (text === "" || busy) return;
    setDraft("");
    void sendMessage({ text });
  };
  // Stop tells the server, by the id of the answer streaming (the one id a page on stock useChat knows of its turn;
  // `stop()` alone would only stop this tab following a turn it did not send, after a reload): the turn ends for
  // everybody, and the stream this tab follows ends with it, each unfinished call closed as stopped. Before any of the
  // answer came, the chat's own `stop()` (the sender's abort) is what stops it.
  const onStop = () => {
    const last = messages.at(-1);
    if (last?.role !== "assistant") {
      void stop();
      return;
    }
    fetch(`${props.base}/chat/stop/${encodeURIComponent(last.id)}`, { method: "POST" })
      .then((response) => (response.ok ? undefined : stop()))
      .catch(() => stop());
  };

  return (
    <>
      <ol className="messages" aria-label="Conversation">
        {messages.map((message) => (
          <li key={message.id} className={`message ${message.role}`}>
            <h2 className="who">{message.role === "user" ? "You" : "Assistant"}</h2>
            {message.parts.map((part, index) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: a message's parts only grow at the end (the AI SDK's order)
              <PartView key={`${message.id}-${index}`} part={part} base={props.base} />
            ))}
          </li>
        ))}
      </ol>
      {error ? <p role="alert">Chat error: {error.message}</p> : null}
      <form className="composer" onSubmit={submit}>
        <label htmlFor="plain-message">Message</label>
        <input id="plain-message" value={draft} onChange={(event) => setDraft(event.target.value)} />
        <button type="submit" disabled={busy}>
          Send
        </button>
        <button type="button" disabled={!busy} onClick={onStop}>
          Stop
        </button>
      </form>
    </>
  );
}

/** What the PlainChatAssistant's agent tools put in a tool part's `output`. */
type ChildOutput = {
  runId?: string;
  agentType?: string;
  status?: string;
  message?: UIMessage | null;
  progress?: { fraction?: number; message?: string } | null;
  result?: unknown;
  /** The tool calls in the child's tree that needed approval, each in its latest state. */
  approvals?: AgentToolApproval[];
};

function PartView({ part, base }: { part: UIMessage["parts"][number]; base: string }) {
  if (part.type === "text") return <p className="text">{part.text}</p>;
  if (!part.type.startsWith("tool-")) return null;
  const tool = part as unknown as { type: string; state: string; output?: ChildOutput; errorText?: string };
  const name = tool.type.slice("tool-".length);
  const output = tool.output;
  const runId = output?.runId;
  const childText = (output?.message?.parts ?? [])
    .flatMap((child) => (child.type === "text" ? [child.text] : []))
    .join("");
  // A call the server closed when its turn was stopped says so, once (its header), not as a failure.
  const isStopped = tool.state === "output-error" && tool.errorText === STOPPED_TOOL_CALL_TEXT;
  const state =
    tool.state === "output-error"
      ? isStopped
        ? "stopped"
        : "failed"
      : output?.result !== undefined
        ? (output.status ?? "done")
        : tool.state === "output-available"
          ? "working…"
          : "starting…";
  return (
    // A group, not a region: a tool called twice would make two landmarks of one name.
    // biome-ignore lint/a11y/useSemanticElements: a tool call groups its header and runs; a fieldset is for form controls
    <section className="tool" role="group" aria-label={`Tool call: ${name}`} data-state={state}>
      <h3>
        {output?.agentType ?? name} <span className="state">{state}</span>
      </h3>
      {output?.progress?.message ? <p className="progress">{output.progress.message}</p> : null}
      {runId !== undefined && output?.approvals !== undefined ? (
        <ApprovalList
          approvals={output.approvals}
          runName={output.agentType ?? name}
          onAnswer={(approvalId, answer) => answerApprovalAt(base, runId, approvalId, answer)}
          closedBy={closedBy(output)}
        />
      ) : null}
      {isStructured(output?.result) ? (
        <StructuredResult value={output.result} />
      ) : childText !== "" ? (
        // A child's structured output streams as JSON text: shown as its fields while it streams, never as JSON.
        <div className="child-text">{looksLikeJson(childText) ? <StructuredText text={childText} /> : childText}</div>
      ) : null}
      {tool.errorText && !isStopped ? <p className="error">{tool.errorText}</p> : null}
    </section>
  );
}

/** How a cancelled child ended, for its approvals that its end closed unanswered ("Not answered: stopped by the user"). */
function closedBy(output: ChildOutput): ApprovalClosedBy | null {
  if (output.status !== "aborted") return null;
  const reason = (output.result as { error?: unknown } | undefined)?.error;
  const said = typeof reason === "string" && reason !== "" ? reason : "Cancelled";
  return { reason: typeof reason === "string" ? reason : null, label: said.charAt(0).toLowerCase() + said.slice(1) };
}

/** A structured (schema-checked) result, rather than the child's raw text; a failure value is not one. */
function isStructured(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !("ok" in value);
}

/** A structured result's fields: text as text, lists as lists. */
function StructuredResult({ value }: { value: Record<string, unknown> }) {
  return (
    <dl className="structured">
      {Object.entries(value).map(([key, field]) => (
        <div key={key}>
          <dt>{key}</dt>
          <dd>
            {Array.isArray(field) ? (
              <ul>
                {field.map((item, index) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: a result's list is fixed once the run ends
                  <li key={index}>{typeof item === "string" ? item : JSON.stringify(item)}</li>
                ))}
              </ul>
            ) : typeof field === "string" ? (
              field
            ) : (
              JSON.stringify(field)
            )}
          </dd>
        </div>
      ))}
    </dl>
  );
}
