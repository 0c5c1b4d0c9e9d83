/**
 * The chat socket handed to `WebSocketChatTransport` (its `webSocket` option): a browser WebSocket that numbers
 * each request's `chunk` frames from 0, as the AI SDK's transport expects (it rejects a first chunk that is not
 * sequence 0 with "Out-of-order WebSocket chat chunk sequence").
 *
 * The demo's Assistant numbers a request's chunks from 1 (apps/demo/src/agents/assistant.ts, both when streaming a
 * turn and when replaying it for `resume`). Each request's first chunk sets its offset, so this is a no-op for a
 * server that already counts from 0: remove it once the Assistant does.
 */
export class ChatSocket {
  readonly #socket: WebSocket;
  /** requestId → the sequence of its first chunk. */
  readonly #offsets = new Map<string, number>();
  onopen: ((event: unknown) => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  onclose: ((event: unknown) => void) | null = null;

  constructor(url: string | URL, protocols?: string | string[]) {
    const socket = new WebSocket(url, protocols);
    this.#socket = socket;
    socket.onopen = (event) => this.onopen?.(event);
    socket.onerror = (event) => this.onerror?.(event);
    socket.onclose = (event) => this.onclose?.(event);
    socket.onmessage = (event) => this.onmessage?.({ data: this.#renumber(event.data) });
  }

  get readyState(): number {
    return this.#socket.readyState;
  }

  get bufferedAmount(): number {
    return this.#socket.bufferedAmount;
  }

  send(data: string | Uint8Array | ArrayBuffer): void {
    this.#socket.send(data as string);
  }

  close(code?: number, reason?: string): void {
    this.#socket.close(code, reason);
  }

  #renumber(data: unknown): unknown {
    if (typeof data !== "string") return data;
    let frame: { type?: unknown; requestId?: unknown; sequence?: unknown };
    try {
      frame = JSON.parse(data);
    } catch {
      return data;
    }
    if (typeof frame !== "object" || frame === null || typeof frame.requestId !== "string") return data;
    const { requestId } = frame;
    if (frame.type === "chunk" && typeof frame.sequence === "number") {
      let offset = this.#offsets.get(requestId);
      if (offset === undefined) {
        offset = frame.sequence;
        this.#offsets.set(requestId, offset);
      }
      return offset === 0 ? data : JSON.stringify({ ...frame, sequence: frame.sequence - offset });
    }
    if (frame.type === "end" || frame.type === "error" || frame.type === "no-active") this.#offsets.delete(requestId);
    return data;
  }
}
