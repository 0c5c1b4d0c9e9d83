import type { AgentToolRunState } from "@agent-tools/react";
import { useChat } from "@ai-sdk/react";
import { getToolName, type UIMessage, WebSocketChatTransport } from "ai";
import {
  type FormEvent,
  type ReactNode,
  useCallback,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
} from "react";
import { type ChatRoutes, cancelRun, chatRoutes, clearRuns, fetchMessages, readChatName } from "./api.js";
import { ChatSocket } from "./chat-socket.js";
import { DrillInPanel } from "./drill-in-panel.js";
import type { ConnectionStatus } from "./events-connection.js";
import { isLive, preview } from "./format.js";
import { isToolPart, type ToolPart, toolStateLabel } from "./parts.js";
import { type RunActions, RunCard } from "./run-card.js";
import { useMessagesSync } from "./use-messages-sync.js";
import { useDetachedRunIds, useParentEvents } from "./use-parent-events.js";

const SUGGESTIONS = ["research cats", "import data", "import data in the background"];

/** Loads the stored conversation, then shows the demo. */
export function App(): ReactNode {
  const routes = useMemo(() => chatRoutes(readChatName()), []);
  const [loaded, setLoaded] = useState<{ messages: UIMessage[] } | { error: string } | null>(null);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    document.title = `agent-tools demo · ${routes.chatName}`;
  }, [routes]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `attempt` retries
  useEffect(() => {
    const controller = new AbortController();
    fetchMessages(routes, controller.signal).then(
      (messages) => setLoaded({ messages }),
      (error: unknown) => {
        if (!controller.signal.aborted) setLoaded({ error: error instanceof Error ? error.message : String(error) });
      },
    );
    return () => controller.abort();
  }, [routes, attempt]);

  if (loaded !== null && "messages" in loaded) return <Demo routes={routes} initialMessages={loaded.messages} />;
  return (
    <>
      <TopBar routes={routes} />
      <main className="layout">
        <section aria-label="Conversation">
          {loaded === null ? (
            <p role="status">Loading the conversation…</p>
          ) : (
            <div className="notice" role="alert">
              <p>Could not load the conversation: {loaded.error}. Is “pnpm demo” running?</p>
              <button
                type="button"
                onClick={() => {
                  setLoaded(null);
                  setAttempt((value) => value + 1);
                }}
              >
                Try again
              </button>
            </div>
          )}
        </section>
      </main>
    </>
  );
}

function TopBar({ routes, children }: { routes: ChatRoutes; children?: ReactNode }): ReactNode {
  return (
    <header className="top">
      <h1>agent-tools demo</h1>
      <span className="muted">
        chat: <strong>{routes.chatName}</strong>
      </span>
      {children}
    </header>
  );
}

const CONNECTION_LABELS: Record<ConnectionStatus, string> = {
  idle: "not connected",
  connecting: "connecting…",
  open: "live",
  reconnecting: "reconnecting…",
  closed: "closed",
};

/** The chat, its child timelines, the background tray and the drill-in panel. */
function Demo({ routes, initialMessages }: { routes: ChatRoutes; initialMessages: UIMessage[] }): ReactNode {
  const events = useParentEvents(routes);
  const [transport] = useState(
    () => new WebSocketChatTransport<UIMessage>({ url: routes.chat, webSocket: ChatSocket }),
  );
  const onFinished = useRef<() => void>(() => undefined);
  const chat = useChat<UIMessage>({
    id: routes.chatName,
    messages: initialMessages,
    transport,
    onFinish: () => onFinished.current(),
  });
  // A turn still running on the server (the page was reloaded mid-turn) is resumed: the server replays its chunks.
  // `resuming` stays true until that resumed turn is over (at once when there is none). This is `useChat`'s
  // `resume: true`, done here so the page knows when the resume settles.
  const [resuming, setResuming] = useState(true);
  const resumeStarted = useRef(false);
  const { resumeStream } = chat;
  useEffect(() => {
    if (resumeStarted.current) return;
    resumeStarted.current = true;
    resumeStream()
      .catch(() => undefined)
      .finally(() => setResuming(false));
  }, [resumeStream]);
  const syncMessages = useMessagesSync(routes, chat, resuming);
  useEffect(() => {
    onFinished.current = syncMessages;
  }, [syncMessages]);

  const [notice, setNotice] = useState<string | null>(null);
  const [drillInRunId, setDrillInRunId] = useState<string | null>(null);
  const [cancelling, setCancelling] = useState<ReadonlySet<string>>(new Set());
  const [clearing, setClearing] = useState(false);

  // Whenever a run finishes, the server may have more to show in the chat (a resumed turn ending, a background
  // run's completion): read the stored conversation again.
  const finishedCount = Object.values(events.runsById).filter((run) => !isLive(run)).length;
  useEffect(() => {
    if (finishedCount > 0) syncMessages();
  }, [finishedCount, syncMessages]);

  const detachedIds = useDetachedRunIds(routes, events.runsById);
  const isBackground = useCallback(
    (run: AgentToolRunState) => detachedIds.has(run.runId) || run.display?.["background"] === true,
    [detachedIds],
  );
  const toolCallIds = useMemo(
    () => new Set(chat.messages.flatMap((message) => message.parts.filter(isToolPart).map((part) => part.toolCallId))),
    [chat.messages],
  );
  // While a resumed turn replays, its tool calls are about to appear: keep their runs out of the tray meanwhile.
  const trayRuns = Object.values(events.runsById).filter(
    (run) =>
      isBackground(run) || run.parentToolCallId === null || (!resuming && !toolCallIds.has(run.parentToolCallId)),
  );

  const actions: RunActions = useMemo(
    () => ({
      onDrillIn: setDrillInRunId,
      cancelling,
      onCancel: (runId) => {
        setCancelling((previous) => new Set(previous).add(runId));
        cancelRun(routes, runId)
          .then(({ cancelled }) => {
            if (!cancelled) setNotice("That run had already finished.");
          })
          .catch((error: unknown) => setNotice(`Cancel failed: ${error instanceof Error ? error.message : error}`))
          .finally(() =>
            setCancelling((previous) => {
              const next = new Set(previous);
              next.delete(runId);
              return next;
            }),
          );
      },
    }),
    [cancelling, routes],
  );

  const onClear = () => {
    setClearing(true);
    setNotice(null);
    clearRuns(routes)
      .then(() => setDrillInRunId(null))
      .catch((error: unknown) => setNotice(`Clear failed: ${error instanceof Error ? error.message : error}`))
      .finally(() => setClearing(false));
  };

  const send = (text: string) => {
    const trimmed = text.trim();
    if (trimmed === "") return false;
    setNotice(null);
    chat.sendMessage({ text: trimmed }).catch((error: unknown) => {
      setNotice(`Could not send: ${error instanceof Error ? error.message : String(error)}`);
    });
    return true;
  };

  useStickToBottom(chat.messages, events.runsById);

  const busy = chat.status === "submitted" || chat.status === "streaming";
  const drillInRun = drillInRunId === null ? undefined : events.runsById[drillInRunId];
  const drillInUrl = drillInRun?.drillInUrl ?? null;

  return (
    <>
      <TopBar routes={routes}>
        <span className="muted conn" role="status" aria-live="polite">
          events: {CONNECTION_LABELS[events.connectionStatus]} · chat:{" "}
          {resuming ? "resuming…" : busy ? "replying…" : chat.status}
        </span>
        <span className="spacer" />
        <button
          type="button"
          onClick={() => events.connection.reconnect()}
          title="Drop the events connection and resume it with this page's cursors"
        >
          Reconnect events
        </button>
        <button type="button" onClick={onClear} disabled={clearing}>
          {clearing ? "Clearing…" : "Clear runs"}
        </button>
      </TopBar>
      <main className="layout">
        <section className="conversation" aria-labelledby="conversation-title">
          <h2 id="conversation-title" className="visually-hidden">
            Conversation
          </h2>
          {notice !== null && (
            <p className="notice" role="alert">
              {notice}
            </p>
          )}
          {chat.error && (
            <p className="notice" role="alert">
              Chat error: {chat.error.message}
            </p>
          )}
          {chat.messages.length === 0 && resuming ? (
            <p role="status" className="muted">
              Resuming the conversation…
            </p>
          ) : chat.messages.length === 0 ? (
            <EmptyChat onPick={send} disabled={busy} />
          ) : (
            <ol className="messages">
              {chat.messages.map((message) => (
                <MessageView
                  key={message.id}
                  message={message}
                  runsFor={(toolCallId) => events.getRunsForToolCall(toolCallId).filter((run) => !isBackground(run))}
                  actions={actions}
                />
              ))}
              {chat.status === "submitted" && !resuming && (
                <li className="msg assistant pending" aria-live="polite">
                  <div className="role">Assistant</div>
                  <p className="muted">Thinking…</p>
                </li>
              )}
            </ol>
          )}
        </section>
        <BackgroundTray runs={trayRuns} actions={actions} />
      </main>
      {/* Stop aborts a turn this page sent; a resumed turn goes on on the server whatever this page does. */}
      <Composer busy={busy} canStop={busy && !resuming} onSend={send} onStop={() => void chat.stop()} />
      {drillInRunId !== null && (
        <DrillInPanel
          key={drillInRunId}
          runId={drillInRunId}
          run={drillInRun}
          url={drillInUrl ?? routes.drillIn(drillInRun?.agentType ?? "", drillInRunId)}
          onClose={() => setDrillInRunId(null)}
        />
      )}
    </>
  );
}

/** Keep the end of the page in view as content arrives, unless the reader scrolled away from it. */
function useStickToBottom(messages: unknown, runs: unknown): void {
  const atBottom = useRef(true);
  useEffect(() => {
    const onScroll = () => {
      const root = document.documentElement;
      atBottom.current = window.innerHeight + window.scrollY >= root.scrollHeight - 80;
    };
    window.addEventListener("scroll", onScroll, { passive: true });
    return () => window.removeEventListener("scroll", onScroll);
  }, []);
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs whenever the content changes
  useLayoutEffect(() => {
    if (atBottom.current) window.scrollTo({ top: document.documentElement.scrollHeight });
  }, [messages, runs]);
}

function EmptyChat({ onPick, disabled }: { onPick(text: string): boolean; disabled: boolean }): ReactNode {
  return (
    <div className="empty-chat">
      <p>No messages yet. Ask the assistant something, or try one of these:</p>
      <ul className="suggestions">
        {SUGGESTIONS.map((text) => (
          <li key={text}>
            <button type="button" onClick={() => onPick(text)} disabled={disabled}>
              {text}
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}

function roleLabel(message: UIMessage): string {
  const source = (message.metadata as { source?: unknown } | undefined)?.source;
  if (message.role === "user") return typeof source === "string" ? "Background task" : "You";
  if (message.role === "assistant") return "Assistant";
  return message.role;
}

function MessageView({
  message,
  runsFor,
  actions,
}: {
  message: UIMessage;
  runsFor(toolCallId: string): readonly AgentToolRunState[];
  actions: RunActions;
}): ReactNode {
  const parts = message.parts.flatMap((part, index) => {
    if (part.type === "text") {
      return part.text === ""
        ? []
        : [
            // biome-ignore lint/suspicious/noArrayIndexKey: text parts have no id; parts only grow at the end
            <p key={`text-${index}`} className="text">
              {part.text}
            </p>,
          ];
    }
    if (isToolPart(part)) {
      return [<ToolCall key={part.toolCallId} part={part} runs={runsFor(part.toolCallId)} actions={actions} />];
    }
    return [];
  });
  return (
    <li className={`msg ${message.role}`} data-message-id={message.id} data-role={message.role}>
      <div className="role">{roleLabel(message)}</div>
      {parts.length > 0 ? parts : <p className="muted">…</p>}
    </li>
  );
}

function ToolCall({
  part,
  runs,
  actions,
}: {
  part: ToolPart;
  runs: readonly AgentToolRunState[];
  actions: RunActions;
}): ReactNode {
  const name = getToolName(part);
  return (
    <section className="tool" aria-label={`Tool call: ${name}`} data-tool-call-id={part.toolCallId}>
      <div className="tool-head">
        <strong>→ {name}</strong>
        <code>{part.input === undefined ? "" : preview(part.input, 160)}</code>
        <span className="muted">{toolStateLabel(part)}</span>
      </div>
      {part.state === "output-error" && part.errorText && (
        <p className="tool-error" role="alert">
          {part.errorText}
        </p>
      )}
      {runs.length > 0 && (
        <div className="runs">
          {runs.map((run) => (
            <RunCard key={run.runId} run={run} actions={actions} />
          ))}
        </div>
      )}
    </section>
  );
}

function BackgroundTray({ runs, actions }: { runs: readonly AgentToolRunState[]; actions: RunActions }): ReactNode {
  const live = runs.filter(isLive).length;
  return (
    <aside className="tray" aria-labelledby="tray-title">
      <h2 id="tray-title">
        Background runs{" "}
        <span className="muted count">{runs.length === 0 ? "" : `${live} running · ${runs.length} in all`}</span>
      </h2>
      {runs.length === 0 ? (
        <p className="muted">No background runs.</p>
      ) : (
        <div className="runs">
          {runs.map((run) => (
            <RunCard key={run.runId} run={run} actions={actions} compact />
          ))}
        </div>
      )}
    </aside>
  );
}

function Composer({
  busy,
  canStop,
  onSend,
  onStop,
}: {
  busy: boolean;
  canStop: boolean;
  onSend(text: string): boolean;
  onStop(): void;
}): ReactNode {
  const [text, setText] = useState("");
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy) return;
    if (onSend(text)) setText("");
  };
  return (
    <form className="composer" onSubmit={onSubmit} autoComplete="off" aria-label="Message the assistant">
      <label htmlFor="prompt" className="visually-hidden">
        Message
      </label>
      <input
        id="prompt"
        name="prompt"
        value={text}
        onChange={(event) => setText(event.target.value)}
        placeholder="Message the assistant, e.g. research cats"
        // biome-ignore lint/a11y/noAutofocus: the page is a chat; typing is what it is for
        autoFocus
      />
      <button type="submit" className="primary large" disabled={busy || text.trim() === ""}>
        Send
      </button>
      <button type="button" className="large" onClick={onStop} disabled={!canStop}>
        Stop
      </button>
    </form>
  );
}
