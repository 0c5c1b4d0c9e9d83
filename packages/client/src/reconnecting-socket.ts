import type { Clock, TimerHandle } from "./ports/clock.js";
import type { WebSocketConstructor, WebSocketLike, WebSocketLikeEvent } from "./ports/web-socket.js";
import { type ReconnectOptions, reconnectDelay } from "./reconnect-delay.js";

/**
 * Where a socket stands: `connecting` before its first open, `open`, `reconnecting` after a drop (waiting out the
 * back-off, or opening again), `closed` once closed on purpose (or, for a drill-in, done).
 */
export type AgentToolConnectionStatus = "connecting" | "open" | "reconnecting" | "closed";

/** @internal */
export type ReconnectingSocketOptions = {
  /** The URL of each (re)open, read at that moment; `null` while there is none yet (see `reconnect()`). */
  url(): string | null;
  WebSocket: WebSocketConstructor;
  clock: Clock;
  random: () => number;
  reconnect: ReconnectOptions;
  onMessage(data: unknown): void;
  onStatus(status: AgentToolConnectionStatus): void;
  /** Asked after a drop: `false` ends it (status `closed`) instead of reopening. Default: always reopen. */
  shouldReopen?(): boolean;
};

/** @internal A socket that reopens itself after a drop, with back-off. */
export type ReconnectingSocket = {
  readonly status: AgentToolConnectionStatus;
  /** Drop the current socket (if any) and open a new one now, with the back-off reset; also after `close()`. */
  reconnect(): void;
  /** Close for good (until `reconnect()`): no reopen. */
  close(): void;
  /** Send `data` on the open socket; false (nothing sent) while it is not open, or when it cannot send. */
  send(data: string): boolean;
};

const readData = (event: WebSocketLikeEvent): unknown => ("data" in event ? event.data : undefined);

function closeQuietly(socket: WebSocketLike): void {
  try {
    socket.close(1000, "client closed");
  } catch {
    // already closed, or a socket that throws on close: either way it is no longer ours
  }
}

/**
 * @internal Open a socket now and keep it open: after a drop (a `close`, an `error`, a `url()` or constructor that
 * throws) it waits `reconnectDelay(attempt)` on the clock and opens again, reading `url()` anew; the attempt count
 * resets on every successful `open`. Events of a socket that is no longer current are ignored, so a late message of a dropped
 * socket never reaches `onMessage`. Never throws from socket events.
 */
export function openReconnectingSocket(options: ReconnectingSocketOptions): ReconnectingSocket {
  let socket: WebSocketLike | null = null;
  let timer: TimerHandle | null = null;
  let attempt = 0;
  let hasOpened = false;
  /** The current socket has opened (and not dropped since). */
  let isOpen = false;
  let status: AgentToolConnectionStatus = "connecting";

  const setStatus = (next: AgentToolConnectionStatus) => {
    if (next === status) return;
    status = next;
    options.onStatus(next);
  };

  const drop = () => {
    const current = socket;
    socket = null;
    isOpen = false;
    if (current) closeQuietly(current);
    if (timer !== null) options.clock.clearTimeout(timer);
    timer = null;
  };

  const afterDrop = () => {
    if (options.shouldReopen && !options.shouldReopen()) {
      setStatus("closed");
      return;
    }
    setStatus("reconnecting");
    const delay = reconnectDelay(attempt, { ...options.reconnect, random: options.random });
    attempt += 1;
    timer = options.clock.setTimeout(() => {
      timer = null;
      open();
    }, delay);
  };

  function open(): void {
    let opened: WebSocketLike;
    try {
      const url = options.url();
      if (url === null) return; // nothing to open yet: the owner calls reconnect() once there is
      opened = new options.WebSocket(url);
    } catch {
      // A URL builder or a constructor that throws counts as a failed attempt: back off and try again.
      afterDrop();
      return;
    }
    socket = opened;
    const isCurrent = () => socket === opened;
    const end = () => {
      if (!isCurrent()) return;
      drop();
      afterDrop();
    };
    opened.addEventListener("open", () => {
      if (!isCurrent()) return;
      attempt = 0;
      hasOpened = true;
      isOpen = true;
      setStatus("open");
    });
    opened.addEventListener("message", (event) => {
      if (isCurrent()) options.onMessage(readData(event));
    });
    opened.addEventListener("close", end);
    opened.addEventListener("error", end);
  }

  open();

  return {
    get status() {
      return status;
    },
    reconnect() {
      drop();
      attempt = 0;
      setStatus(hasOpened ? "reconnecting" : "connecting");
      open();
    },
    close() {
      drop();
      setStatus("closed");
    },
    send(data) {
      if (!socket || !isOpen || typeof socket.send !== "function") return false;
      try {
        socket.send(data);
        return true;
      } catch {
        return false;
      }
    },
  };
}
