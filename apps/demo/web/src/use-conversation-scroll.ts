import type { UIMessage } from "ai";
import { type RefObject, useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";

/** How far from the end (px) still counts as "at the latest". */
const NEAR_END_PX = 96;

const distanceFromEnd = () => document.documentElement.scrollHeight - (window.scrollY + window.innerHeight);

/** The last user message (the one this page just sent, after a send). */
function lastUserMessage(messages: readonly UIMessage[]): UIMessage | undefined {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    if (messages[index]?.role === "user") return messages[index];
  }
  return undefined;
}

const reducedMotion = () => window.matchMedia?.("(prefers-reduced-motion: reduce)").matches ?? false;

export type ConversationScroll = {
  /** True while the end of the conversation is out of view: the page offers "Jump to latest". */
  isAwayFromLatest: boolean;
  /** Scroll to the end and follow it again. */
  jumpToLatest(): void;
  /** Call right before sending: the message sent is scrolled into view (to the top) once it shows. */
  willSend(): void;
};

/**
 * How the page scrolls with the conversation:
 * - while the reader is at the end, new content keeps it at the end (and reading up stops that);
 * - on send, the reader's own message is scrolled to the top of the view, and the answer grows below it (the page
 *   does not chase the end then: "Jump to latest" does, and so does scrolling back down);
 * - "Jump to latest" shows whenever the end is out of view.
 */
export function useConversationScroll(
  messages: readonly UIMessage[],
  content: RefObject<HTMLElement | null>,
): ConversationScroll {
  const following = useRef(true);
  const lastScrollY = useRef(0);
  const sendFrom = useRef<string | null | undefined>(undefined);
  const [isAwayFromLatest, setIsAwayFromLatest] = useState(false);

  const measure = useCallback(() => {
    setIsAwayFromLatest(distanceFromEnd() > NEAR_END_PX);
  }, []);

  useEffect(() => {
    const onScroll = () => {
      const nearEnd = distanceFromEnd() <= NEAR_END_PX;
      if (nearEnd) following.current = true;
      else if (window.scrollY < lastScrollY.current) following.current = false;
      lastScrollY.current = window.scrollY;
      measure();
    };
    window.addEventListener("scroll", onScroll, { passive: true });
    window.addEventListener("resize", measure);
    // Content growing (text streaming, a card opening) moves the end: follow it, or offer to jump to it.
    const observer = new ResizeObserver(() => {
      if (following.current) window.scrollTo({ top: document.documentElement.scrollHeight });
      measure();
    });
    if (content.current) observer.observe(content.current);
    return () => {
      window.removeEventListener("scroll", onScroll);
      window.removeEventListener("resize", measure);
      observer.disconnect();
    };
  }, [content, measure]);

  // The message just sent shows: bring it to the top of the view.
  useLayoutEffect(() => {
    if (sendFrom.current === undefined) return;
    const sent = lastUserMessage(messages);
    if (!sent || sent.id === sendFrom.current) return;
    sendFrom.current = undefined;
    const element = document.querySelector(`[data-message-id="${CSS.escape(sent.id)}"]`);
    if (!element) return;
    following.current = false;
    element.scrollIntoView({ block: "start" });
    lastScrollY.current = window.scrollY;
    measure();
  }, [messages, measure]);

  const willSend = useCallback(() => {
    sendFrom.current = lastUserMessage(messages)?.id ?? null;
  }, [messages]);

  const jumpToLatest = useCallback(() => {
    following.current = true;
    window.scrollTo({ top: document.documentElement.scrollHeight, behavior: reducedMotion() ? "auto" : "smooth" });
  }, []);

  return { isAwayFromLatest, jumpToLatest, willSend };
}
