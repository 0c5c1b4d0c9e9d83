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

const messageElement = (id: string) => document.querySelector<HTMLElement>(`[data-message-id="${CSS.escape(id)}"]`);

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
 * - on send, the reader's own message is scrolled to the top of the view, and the answer grows below it. While the
 *   answer is short the page makes room for that: its minimum height lets the view sit there, whatever the content
 *   below does (a line replaced, a card folding never pulls the view up), and the page never moves by itself then —
 *   it does not chase the end: "Jump to latest" does, and so does scrolling back down;
 * - "Jump to latest" shows whenever the end is out of view.
 */
export function useConversationScroll(
  messages: readonly UIMessage[],
  content: RefObject<HTMLElement | null>,
): ConversationScroll {
  const following = useRef(true);
  const lastScrollY = useRef(0);
  /** Set by `willSend`: the last user message before the send (`null`: none), until the sent one shows. */
  const sendFrom = useRef<string | null | undefined>(undefined);
  /** The message sent last: the page keeps the room it needs to sit at the top of the view (until the next send). */
  const anchor = useRef<string | null>(null);
  /** True from a send until the reader scrolls: the message sent is held at the top of the view. */
  const pinned = useRef(false);
  /** Where the page put the view itself (a scroll event there is not the reader's). */
  const placedAt = useRef<number | null>(null);
  const [isAwayFromLatest, setIsAwayFromLatest] = useState(false);

  const measure = useCallback(() => {
    setIsAwayFromLatest(distanceFromEnd() > NEAR_END_PX);
  }, []);

  /**
   * Give the page the height the message sent needs to sit at the top of the view (none without one), and while it
   * is pinned put it there. Content above it changing moves it: called again then (after layout, before paint).
   */
  const place = useCallback(() => {
    const root = document.documentElement;
    const sent = anchor.current === null ? null : messageElement(anchor.current);
    if (!sent) {
      root.style.minHeight = "";
      return;
    }
    const paddingTop = Number.parseFloat(getComputedStyle(root).scrollPaddingTop) || 0;
    const top = Math.max(0, Math.round(sent.getBoundingClientRect().top + window.scrollY - paddingTop));
    const minHeight = `${top + window.innerHeight}px`;
    if (root.style.minHeight !== minHeight) root.style.minHeight = minHeight;
    if (!pinned.current) return;
    if (Math.abs(window.scrollY - top) >= 1) window.scrollTo({ top });
    placedAt.current = window.scrollY;
  }, []);

  useEffect(() => {
    const onScroll = () => {
      const y = window.scrollY;
      if (placedAt.current !== null && Math.abs(y - placedAt.current) < 1) return;
      // The reader scrolled: the message sent is no longer held in place.
      placedAt.current = null;
      pinned.current = false;
      const nearEnd = distanceFromEnd() <= NEAR_END_PX;
      if (nearEnd) following.current = true;
      else if (y < lastScrollY.current) following.current = false;
      lastScrollY.current = y;
      measure();
    };
    const onResize = () => {
      place();
      measure();
    };
    window.addEventListener("scroll", onScroll, { passive: true });
    window.addEventListener("resize", onResize);
    // Content growing (text streaming, a card opening) moves the end: follow it if the reader is there (and no
    // message sent is held at the top), or offer to jump to it.
    const observer = new ResizeObserver(() => {
      place();
      if (following.current && !pinned.current) window.scrollTo({ top: document.documentElement.scrollHeight });
      measure();
    });
    if (content.current) observer.observe(content.current);
    return () => {
      window.removeEventListener("scroll", onScroll);
      window.removeEventListener("resize", onResize);
      observer.disconnect();
      document.documentElement.style.minHeight = "";
    };
  }, [content, measure, place]);

  // The message just sent shows: it goes to the top of the view, with room below it (before the page paints).
  useLayoutEffect(() => {
    if (sendFrom.current === undefined) return;
    const sent = lastUserMessage(messages);
    if (!sent || sent.id === sendFrom.current) return;
    sendFrom.current = undefined;
    if (!messageElement(sent.id)) return;
    anchor.current = sent.id;
    pinned.current = true;
    following.current = false;
    place();
    lastScrollY.current = window.scrollY;
    measure();
  }, [messages, measure, place]);

  const willSend = useCallback(() => {
    sendFrom.current = lastUserMessage(messages)?.id ?? null;
  }, [messages]);

  const jumpToLatest = useCallback(() => {
    following.current = true;
    anchor.current = null;
    pinned.current = false;
    place();
    window.scrollTo({ top: document.documentElement.scrollHeight, behavior: reducedMotion() ? "auto" : "smooth" });
  }, [place]);

  return { isAwayFromLatest, jumpToLatest, willSend };
}
