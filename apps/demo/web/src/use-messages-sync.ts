import type { UIMessage } from "ai";
import { useCallback, useEffect, useRef } from "react";
import { type ChatRoutes, fetchMessages } from "./api.js";

/** When to read `/messages` again after a trigger (ms after the trigger): bounded, then it stops. */
const SCHEDULE_MS = [150, 500, 1_000, 2_000, 4_000, 8_000];

export type SyncedChat = {
  messages: UIMessage[];
  status: "submitted" | "streaming" | "ready" | "error";
  setMessages(messages: UIMessage[]): void;
  stop(): Promise<void>;
};

/** Ids and part counts: enough to tell that the server holds something the page does not show. */
function signature(messages: readonly UIMessage[]): string {
  return messages.map((message) => `${message.id}:${message.parts.length}`).join("|");
}

/**
 * Keeps the chat in step with what the server stored, for what the chat socket does not stream to this page:
 * - a turn resumed after a reload (`useChat({ resume: true })`): the server replays the turn's chunks so far but
 *   streams the rest only to the socket that sent it, so the resumed stream stalls; once `/messages` holds the
 *   resumed message, the stalled stream is stopped and the stored conversation shown;
 * - turns the server starts itself (a background run's completion is told to the chat).
 *
 * `trigger()` (called when a turn ends and when a run finishes) reads `/messages` a few times over ~15 s.
 */
export function useMessagesSync(routes: ChatRoutes, chat: SyncedChat, resuming: boolean): () => void {
  const latest = useRef({ chat, resuming });
  useEffect(() => {
    latest.current = { chat, resuming };
  });
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const controller = useRef<AbortController | null>(null);

  const syncOnce = useCallback(
    async (signal: AbortSignal): Promise<void> => {
      const stored = await fetchMessages(routes, signal);
      if (signal.aborted) return;
      const { chat: current, resuming: isResuming } = latest.current;
      if (current.status === "ready" || current.status === "error") {
        if (signature(stored) !== signature(current.messages)) current.setMessages(stored);
        return;
      }
      const last = current.messages.at(-1);
      if (isResuming && last?.role === "assistant" && stored.some((message) => message.id === last.id)) {
        await current.stop();
        current.setMessages(stored);
      }
    },
    [routes],
  );

  const trigger = useCallback(() => {
    clearTimeout(timer.current);
    controller.current?.abort();
    const own = new AbortController();
    controller.current = own;
    let step = 0;
    const next = () => {
      const delay = SCHEDULE_MS[step];
      if (delay === undefined || own.signal.aborted) return;
      const previous = SCHEDULE_MS[step - 1] ?? 0;
      step += 1;
      timer.current = setTimeout(() => {
        syncOnce(own.signal)
          .catch(() => undefined)
          .finally(next);
      }, delay - previous);
    };
    next();
  }, [syncOnce]);

  useEffect(
    () => () => {
      clearTimeout(timer.current);
      controller.current?.abort();
    },
    [],
  );
  return trigger;
}
