import WebSocket from "ws";

/**
 * A test WebSocket client that records every JSON message and lets a test wait for a condition on them —
 * event-driven (resolved by arriving messages), bounded by a timeout so a broken server fails the test
 * instead of hanging it.
 */
export class RecordingSocket {
  readonly messages: unknown[] = [];
  readonly #socket: WebSocket;
  readonly #waiters = new Set<() => void>();
  #closed = false;
  #closeEvent: { code: number; reason: string } | null = null;
  readonly #closedWith: Promise<number>;

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.on("message", (data) => {
      this.messages.push(JSON.parse(String(data)));
      for (const waiter of [...this.#waiters]) waiter();
    });
    let closedWith: (code: number) => void = () => undefined;
    this.#closedWith = new Promise((resolve) => {
      closedWith = resolve;
    });
    socket.on("close", (code, reason) => {
      this.#closed = true;
      this.#closeEvent = { code, reason: String(reason) };
      closedWith(code);
      for (const waiter of [...this.#waiters]) waiter();
    });
  }

  static open(url: string): Promise<RecordingSocket> {
    const socket = new WebSocket(url);
    const client = new RecordingSocket(socket);
    return new Promise((resolve, reject) => {
      socket.once("open", () => resolve(client));
      socket.once("error", reject);
    });
  }

  send(value: unknown): void {
    this.#socket.send(JSON.stringify(value));
  }

  /** Send a frame as is: text that may not be JSON, or binary. */
  sendRaw(data: string | Uint8Array): void {
    this.#socket.send(data);
  }

  /** The extensions the server agreed to in the handshake ("" for none), e.g. "permessage-deflate". */
  get extensions(): string {
    return this.#socket.extensions;
  }

  /**
   * Resolves with the close code once the socket is closed: the code of the server's close frame, or 1006 when the
   * connection ended without one (the server process died).
   */
  closed(): Promise<number> {
    return this.#closedWith;
  }

  /** Whether the socket is still open. */
  get open(): boolean {
    return this.#socket.readyState === WebSocket.OPEN;
  }

  /** Resolve once `predicate(messages)` holds; reject after `timeoutMs` or if the socket closes first. */
  waitFor(predicate: (messages: unknown[]) => boolean, timeoutMs = 30_000): Promise<void> {
    if (predicate(this.messages)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const check = () => {
        if (predicate(this.messages)) {
          cleanup();
          resolve();
        } else if (this.#closed) {
          cleanup();
          reject(new Error("socket closed before the condition held"));
        }
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`condition not met within ${timeoutMs} ms; got ${this.messages.length} messages`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.#waiters.delete(check);
      };
      this.#waiters.add(check);
    });
  }

  /** Resolve with the close code and reason once the server closes the socket; reject after `timeoutMs`. */
  waitForClose(timeoutMs = 30_000): Promise<{ code: number; reason: string }> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (this.#closeEvent === null) return;
        cleanup();
        resolve(this.#closeEvent);
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`socket not closed within ${timeoutMs} ms; got ${this.messages.length} messages`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.#waiters.delete(check);
      };
      this.#waiters.add(check);
      check();
    });
  }

  /** Close without waiting for workerd's close handshake (it may never answer). */
  close(): void {
    try {
      this.#socket.close();
    } catch {
      // already closed
    }
    this.#socket.terminate();
  }
}
