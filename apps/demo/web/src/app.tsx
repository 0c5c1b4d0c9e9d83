import {
  type AgentToolRunState,
  isAgentChatDisconnect,
  useAgentChatSync,
  useAgentToolEvents,
} from "@agent-tools/react";
import { Chat, useChat } from "@ai-sdk/react";
import { type UIMessage, WebSocketChatTransport } from "ai";
import { type ReactNode, useCallback, useEffect, useMemo, useRef, useState } from "react";
import { answerOutcome, liveAnswerId, saysError } from "./answer-state.js";
import { ApprovalAnnouncer } from "./approval-announcer.js";
import { BackgroundTray, TRAY_ID } from "./background-tray.js";
import { conversationRunIds } from "./chat-entries.js";
import { Composer, type ComposerHandle } from "./composer.js";
import { DevControls } from "./dev-controls.js";
import { DrillInDialog } from "./drill-in-dialog.js";
import { isLive } from "./format.js";
import { MessageList } from "./message-list.js";
import type { MessageContext } from "./message-view.js";
import { chatRoutes, readChatName, readDevMode } from "./routes.js";
import { cancelRun, clearRuns } from "./run-actions.js";
import type { RunActions } from "./run-card.js";
import { useConversationScroll } from "./use-conversation-scroll.js";

const SUGGESTIONS = [
  "research cats",
  "import data",
  "import data in the background",
  "write this: cats sleep 16 hours a day",
];

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The words of a message (its text parts). */
const messageText = (message: UIMessage) =>
  message.parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");

function withItem(set: ReadonlySet<string>, item: string): ReadonlySet<string> {
  return new Set(set).add(item);
}

function withoutItem(set: ReadonlySet<string>, item: string): ReadonlySet<string> {
  const next = new Set(set);
  next.delete(item);
  return next;
}

/**
 * The demo: the Assistant's chat (`useChat` over the AI SDK's WebSocket chat transport, kept in step with the stored
 * conversation and other tabs by `useAgentChatSync`), each tool call's child runs inline (`useAgentToolEvents`), a
 * background-runs tray, and drill-in to a child (`useAgentToolRun`).
 */
export function App(): ReactNode {
  const routes = useMemo(() => chatRoutes(readChatName()), []);
  const isDev = useMemo(() => readDevMode(), []);
  useEffect(() => {
    document.title = `agent-tools demo · ${routes.chatName}`;
  }, [routes]);

  const [chat] = useState(
    () =>
      new Chat<UIMessage>({
        id: routes.chatName,
        transport: new WebSocketChatTransport<UIMessage>({ url: routes.chat }),
      }),
  );
  const { messages, status, error, sendMessage, stop, regenerate, clearError } = useChat({ chat });
  const conversation = useAgentChatSync({ url: routes.events, chat });
  const agentTools = useAgentToolEvents({ url: routes.events });

  const [notice, setNotice] = useState<string | null>(null);
  const [drillInRunId, setDrillInRunId] = useState<string | null>(null);
  const [cancelling, setCancelling] = useState<ReadonlySet<string>>(new Set());
  const [cancelledHere, setCancelledHere] = useState<ReadonlySet<string>>(new Set());
  const [stoppedHere, setStoppedHere] = useState<ReadonlySet<string>>(new Set());
  const [isClearing, setIsClearing] = useState(false);
  const [isTrayOpen, setIsTrayOpen] = useState(false);
  const trayBadge = useRef<HTMLButtonElement>(null);
  const content = useRef<HTMLElement>(null);
  const composer = useRef<ComposerHandle>(null);
  const scroll = useConversationScroll(messages, content);

  const isBusy = status === "submitted" || status === "streaming";
  const { isDisconnected, unsent } = conversation;
  const last = messages.at(-1);
  const streamingMessageId = liveAnswerId({ messages, isBusy, isDisconnected, endedTurns: conversation.endedTurns });
  /** Why Send is off now (besides an empty box), as the composer says it; `null` when a message may be sent. */
  const sendBlocked = isDisconnected
    ? "" // the connection banner, right above the box, says why
    : unsent.length > 0
      ? "Retry or discard the message that was not sent first."
      : null;
  // The chat's request failed (not a disconnect) with the last answer streamed: that answer failed. The chat's socket
  // brings the error before the event socket brings the turn's end and the stored "This answer failed: …": until
  // then too, the failure is the answer's (Retry on it), not an alert of its own.
  const hasLastAnswerFailed =
    status === "error" &&
    error !== undefined &&
    !isAgentChatDisconnect(error) &&
    last?.role === "assistant" &&
    conversation.endedTurns[last.id] !== "completed";
  // The last answer, once its turn is over: it may be regenerated (retried, if it failed).
  const lastAnswer =
    !isBusy && last?.role === "assistant" && streamingMessageId !== last.id
      ? { id: last.id, outcome: hasLastAnswerFailed ? "failed" : answerOutcome(last, conversation.endedTurns) }
      : null;
  const focusComposer = () => document.getElementById("prompt")?.focus({ preventScroll: true });

  // The parent's own runs: each shows the approvals of its whole tree.
  const allRuns = useMemo(() => Object.values(agentTools.runsById), [agentTools.runsById]);
  const trayRuns = useMemo(
    () => Object.values(agentTools.runsById).filter((run) => run.detached || run.parentToolCallId === null),
    [agentTools.runsById],
  );
  const liveTrayRuns = trayRuns.filter(isLive).length;
  // Every run id the page knows, from the runs and from the conversation (which still names runs once they are cleared).
  const runIds = useMemo(
    () => [...new Set([...conversationRunIds(messages), ...Object.keys(agentTools.runsById)])],
    [messages, agentTools.runsById],
  );

  const { answerApproval } = agentTools;
  const actions: RunActions = useMemo(
    () => ({
      onDrillIn: setDrillInRunId,
      onAnswerApproval: answerApproval,
      isOffline: isDisconnected,
      cancelling,
      cancelledHere: (runId) => cancelledHere.has(runId),
      onCancel: (runId) => {
        setCancelling((previous) => withItem(previous, runId));
        setCancelledHere((previous) => withItem(previous, runId));
        cancelRun(routes, runId)
          .then(({ cancelled }) => {
            if (cancelled) return;
            setCancelledHere((previous) => withoutItem(previous, runId));
            setNotice("That run had already finished.");
          })
          .catch((reason: unknown) => {
            setCancelledHere((previous) => withoutItem(previous, runId));
            setNotice(`Cancel failed: ${errorText(reason)}`);
          })
          .finally(() => setCancelling((previous) => withoutItem(previous, runId)));
      },
    }),
    [cancelling, cancelledHere, routes, answerApproval, isDisconnected],
  );

  const runsFor = useCallback(
    (toolCallId: string) => agentTools.getRunsForToolCall(toolCallId).filter((run) => !run.detached),
    [agentTools],
  );
  const context: MessageContext = {
    runsById: agentTools.runsById,
    runsFor,
    runIds,
    actions,
    streamingMessageId,
    endedTurns: conversation.endedTurns,
    stoppedHere,
    unsent: new Map(unsent.map((each) => [each.messageId, each])),
    canRetry: !isBusy && !isDisconnected,
    usageOf: (messageId) =>
      conversation.usageByAnswer[messageId] ?? (messageId === streamingMessageId ? conversation.activeTurnUsage : null),
    onRetryUnsent: (messageId) => {
      setNotice(null);
      focusComposer();
      conversation.retryUnsent(messageId).catch((reason: unknown) => setNotice(`Could not send: ${errorText(reason)}`));
    },
    onDiscardUnsent: (messageId) => {
      const message = messages.find((each) => each.id === messageId);
      if (!conversation.discardUnsent(messageId)) return;
      clearError();
      // Nothing is lost: its text goes back into the box, to edit or send again.
      if (message) composer.current?.putBack(messageText(message));
      focusComposer();
    },
    lastAnswer,
    onRegenerate: () => {
      setNotice(null);
      focusComposer();
      regenerate().catch((reason: unknown) => setNotice(`Could not send: ${errorText(reason)}`));
    },
  };

  const send = (text: string) => {
    const trimmed = text.trim();
    if (trimmed === "" || isBusy || sendBlocked !== null) return false;
    setNotice(null);
    scroll.willSend();
    sendMessage({ text: trimmed }).catch((reason: unknown) => setNotice(`Could not send: ${errorText(reason)}`));
    return true;
  };

  const onStop = () => {
    if (streamingMessageId !== null) setStoppedHere((previous) => withItem(previous, streamingMessageId));
    // The chat's own stop() stops a turn this tab sent; stopTurn() also one it only follows (another tab's).
    void stop();
    conversation.stopTurn().catch((reason: unknown) => setNotice(`Could not stop: ${errorText(reason)}`));
  };

  const onClear = () => {
    if (isClearing) return;
    setIsClearing(true);
    setNotice(null);
    clearRuns(routes)
      .then(() => setDrillInRunId(null))
      .catch((reason: unknown) => setNotice(`Clear failed: ${errorText(reason)}`))
      .finally(() => setIsClearing(false));
  };

  const closeTray = () => {
    setIsTrayOpen(false);
    trayBadge.current?.focus();
  };

  // The chat's error, unless the page says it elsewhere: a disconnect (the banner), a message not sent (on it), a
  // failed answer (on it).
  const isErrorShownElsewhere =
    error === undefined ||
    isAgentChatDisconnect(error) ||
    unsent.some((each) => each.error === error.message) ||
    hasLastAnswerFailed ||
    (lastAnswer?.outcome === "failed" && last !== undefined && saysError(last, error.message));
  const drillInRun: AgentToolRunState | undefined =
    drillInRunId === null ? undefined : agentTools.runsById[drillInRunId];

  return (
    <>
      <header className="top">
        <h1>agent-tools demo</h1>
        <span className="muted chat-name">
          chat: <strong>{routes.chatName}</strong>
        </span>
        <span className="spacer" />
        <button
          type="button"
          ref={trayBadge}
          className="tray-badge"
          aria-expanded={isTrayOpen}
          aria-controls={TRAY_ID}
          onClick={() => setIsTrayOpen((open) => !open)}
        >
          Background
          <span className={`pill${liveTrayRuns > 0 ? " live" : ""}`} aria-hidden="true">
            {liveTrayRuns > 0 ? liveTrayRuns : trayRuns.length}
          </span>
          <span className="visually-hidden">{`: ${liveTrayRuns} running, ${trayRuns.length} in all`}</span>
        </button>
        {isDev && (
          <DevControls
            connection={agentTools.connection}
            connectionStatus={agentTools.connectionStatus}
            chatStatus={status}
          />
        )}
      </header>
      <ApprovalAnnouncer runs={allRuns} />
      <main className="layout">
        <section className="conversation" aria-labelledby="conversation-title" ref={content}>
          <h2 id="conversation-title" className="visually-hidden">
            Conversation
          </h2>
          {notice !== null && (
            <p className="notice" role="alert">
              {notice}
            </p>
          )}
          {!isErrorShownElsewhere && (
            <p className="notice" role="alert">
              Chat error: {error?.message}
            </p>
          )}
          {conversation.status === "error" && messages.length === 0 ? (
            <div className="notice" role="alert">
              <p>Could not load the conversation: {conversation.error}. Is “pnpm demo” running?</p>
              <button type="button" onClick={() => void conversation.reload()}>
                Try again
              </button>
            </div>
          ) : conversation.status === "loading" && messages.length === 0 ? (
            <p role="status" className="muted">
              Loading the conversation…
            </p>
          ) : messages.length === 0 ? (
            <EmptyChat onPick={send} />
          ) : (
            <MessageList
              messages={messages}
              context={context}
              isThinking={status === "submitted" && last?.role === "user"}
            />
          )}
        </section>
        <BackgroundTray
          runs={trayRuns}
          actions={actions}
          isOpen={isTrayOpen}
          onClose={closeTray}
          onClear={onClear}
          isClearing={isClearing}
        />
      </main>
      {scroll.isAwayFromLatest && (
        <button
          type="button"
          className="jump-latest"
          onClick={() => {
            scroll.jumpToLatest();
            focusComposer();
          }}
        >
          Jump to latest ↓
        </button>
      )}
      <Composer
        ref={composer}
        isBusy={isBusy}
        blockedReason={sendBlocked}
        status={
          isDisconnected && (
            <p>
              <strong>Connection lost.</strong> Reconnecting… You can send again once it is back.
            </p>
          )
        }
        onSend={send}
        onStop={onStop}
      />
      {drillInRunId !== null && (
        <DrillInDialog
          key={drillInRunId}
          runId={drillInRunId}
          parentUrl={routes.events}
          jsonUrl={drillInRun?.agentType ? routes.drillIn(drillInRun.agentType, drillInRunId) : null}
          onClose={() => setDrillInRunId(null)}
        />
      )}
    </>
  );
}

function EmptyChat({ onPick }: { onPick(text: string): boolean }): ReactNode {
  return (
    <div className="empty-chat">
      <p>No messages yet. Ask the assistant something, or try one of these:</p>
      <ul className="suggestions">
        {SUGGESTIONS.map((text) => (
          <li key={text}>
            <button type="button" onClick={() => onPick(text)}>
              {text}
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
