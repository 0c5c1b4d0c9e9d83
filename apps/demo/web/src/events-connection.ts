export type ConnectionStatus = "idle" | "connecting" | "open" | "reconnecting" | "closed";

export type EventsConnectionOptions = {
  /** Builds the URL for each (re)connect, so it can carry the cursors held at that moment. */
  url: () => string;
  /** Backoff after a close: `min(maxDelayMs, baseDelayMs * 2^attempt)`. */
  baseDelayMs?: number;
  maxDelayMs?: number;
};

/**
 * The page's connection to the Assistant's events socket: a WebSocket that reconnects on its own, calling `url()`
 * again on every attempt. It is one stable `EventTarget` that re-dispatches every `message`, whichever socket is
 * current, so `useAgentToolEvents({ agent })` subscribes once and keeps listening across reconnects.
 *
 * Nothing connects until `start()`: call it after the hook has attached its listener (an effect declared after the
 * hook), so that no replayed frame arrives before anyone listens.
 */
export class EventsConnection extends EventTarget {
  readonly #url: () => string;
  readonly #baseDelayMs: number;
  readonly #maxDelayMs: number;
  readonly #statusListeners = new Set<() => void>();
  #socket: WebSocket | null = null;
  #status: ConnectionStatus = "idle";
  #attempt = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #running = false;
  /** Every URL this connection opened, newest last (shown on the page, read by the browser test). */
  readonly urls: string[] = [];

  constructor(options: EventsConnectionOptions) {
    super();
    this.#url = options.url;
    this.#baseDelayMs = options.baseDelayMs ?? 250;
    this.#maxDelayMs = options.maxDelayMs ?? 5_000;
  }

  get status(): ConnectionStatus {
    return this.#status;
  }

  /** For `useSyncExternalStore`. */
  readonly subscribeStatus = (listener: () => void): (() => void) => {
    this.#statusListeners.add(listener);
    return () => this.#statusListeners.delete(listener);
  };

  readonly getStatus = (): ConnectionStatus => this.#status;

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#attempt = 0;
    this.#connect();
  }

  stop(): void {
    this.#running = false;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const socket = this.#socket;
    this.#socket = null;
    if (socket) closeQuietly(socket);
    this.#setStatus("closed");
  }

  /** Drop the current socket and connect again at once (with the cursors held now). */
  reconnect(): void {
    if (!this.#running) {
      this.start();
      return;
    }
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const socket = this.#socket;
    this.#socket = null;
    if (socket) closeQuietly(socket);
    this.#attempt = 0;
    this.#connect();
  }

  #connect(): void {
    if (!this.#running) return;
    this.#setStatus(this.#attempt === 0 && this.urls.length === 0 ? "connecting" : "reconnecting");
    let socket: WebSocket;
    try {
      const url = this.#url();
      this.urls.push(url);
      socket = new WebSocket(url);
    } catch {
      this.#scheduleReconnect();
      return;
    }
    this.#socket = socket;
    socket.addEventListener("open", () => {
      if (this.#socket !== socket) return;
      this.#attempt = 0;
      this.#setStatus("open");
    });
    socket.addEventListener("message", (event) => {
      if (this.#socket !== socket) return;
      this.dispatchEvent(new MessageEvent("message", { data: event.data }));
    });
    socket.addEventListener("close", () => {
      if (this.#socket !== socket) return;
      this.#socket = null;
      this.#scheduleReconnect();
    });
  }

  #scheduleReconnect(): void {
    if (!this.#running) return;
    this.#setStatus("reconnecting");
    const delay = Math.min(this.#maxDelayMs, this.#baseDelayMs * 2 ** this.#attempt);
    this.#attempt += 1;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#connect();
    }, delay);
  }

  #setStatus(status: ConnectionStatus): void {
    if (this.#status === status) return;
    this.#status = status;
    for (const listener of [...this.#statusListeners]) listener();
  }
}

function closeQuietly(socket: WebSocket): void {
  try {
    socket.close(1000, "reconnecting");
  } catch {
    // already closed
  }
}
