import { packAgentToolBatches } from "@agent-tools/core-runs/protocol";

/** Where an {@link EventOutbox} writes: the event sockets of the moment, and a send that never throws. */
export type EventOutboxPort<TSocket> = {
  /**
   * Every event socket now, by whether it asked for batches: looked up when the outbox holds no list (at first, after
   * `socketsChanged()`, once a socket it holds is no longer open), not at every flush.
   */
  sockets(): { batched: readonly TSocket[]; plain: readonly TSocket[] };
  /** Whether a socket can still take messages (not closing or closed). */
  isOpen(socket: TSocket): boolean;
  /** Send one message; a socket that cannot take it (closing) is skipped, never thrown about. */
  send(socket: TSocket, message: string): void;
};

type SocketsByForm<TSocket> = { batched: readonly TSocket[]; plain: readonly TSocket[] };

/** Texts waiting to be sent: to every event socket (`to: null`), or to one (which asked for batches or not). */
type Outgoing<TSocket> = { to: { socket: TSocket; batches: boolean } | null; texts: string[] };

/**
 * What a parent sends its event sockets in one synchronous stretch, written out at the stretch's end (a microtask) or
 * when `flush()` is called, in the order it was sent (SPEC §6, batches): runs of texts for every event socket (run
 * frames, conversation events) or for one socket (its replay, its page frames). Each run goes to a socket that asked
 * for batches in as few JSON array messages as the bound allows, to any other one message per text. The list of
 * sockets is kept between flushes (a lookup of a Durable Object's sockets costs about 0.1 ms): looked up again after
 * `socketsChanged()` (a socket accepted) or once a socket it holds is no longer open (one closed), and a new outbox
 * (an object woken from hibernation) looks it up first. Host-free: the port says what the sockets are.
 */
export class EventOutbox<TSocket> {
  readonly #port: EventOutboxPort<TSocket>;
  #pending: Outgoing<TSocket>[] = [];
  #flushQueued = false;
  /** The open event sockets as last looked up; `null`: look them up at the next broadcast written out. */
  #sockets: SocketsByForm<TSocket> | null = null;

  constructor(port: EventOutboxPort<TSocket>) {
    this.#port = port;
  }

  /** One text for every event socket there is when it is written out. */
  broadcast(text: string): void {
    this.#queue(null, text);
  }

  /** One text for one socket (`batches`: whether it asked for them), in order with everything else. */
  sendTo(socket: TSocket, batches: boolean, text: string): void {
    this.#queue({ socket, batches }, text);
  }

  /**
   * Write out what is pending now. Before a socket is accepted: what was broadcast before it goes to the sockets it was
   * broadcast to, and the new socket gets only what follows.
   */
  flush(): void {
    this.#flushQueued = false;
    const pending = this.#pending;
    if (pending.length === 0) return;
    this.#pending = [];
    let sockets: SocketsByForm<TSocket> | null = null;
    for (const { to, texts } of pending) {
      if (to !== null) {
        this.#sendAll(to.socket, to.batches ? packAgentToolBatches(texts) : texts);
        continue;
      }
      sockets ??= this.#openSockets();
      const batches = sockets.batched.length > 0 ? packAgentToolBatches(texts) : texts;
      for (const socket of sockets.batched) this.#sendAll(socket, batches);
      for (const socket of sockets.plain) this.#sendAll(socket, texts);
    }
  }

  /** The set of event sockets changed (one was accepted): the next broadcast written out looks them up again. */
  socketsChanged(): void {
    this.#sockets = null;
  }

  /** The open event sockets: the list held, unless one of them closed since (then looked up again). */
  #openSockets(): SocketsByForm<TSocket> {
    const held = this.#sockets;
    if (held?.batched.every(this.#isOpen) && held.plain.every(this.#isOpen)) return held;
    const { batched, plain } = this.#port.sockets();
    this.#sockets = { batched: batched.filter(this.#isOpen), plain: plain.filter(this.#isOpen) };
    return this.#sockets;
  }

  readonly #isOpen = (socket: TSocket): boolean => this.#port.isOpen(socket);

  #queue(to: Outgoing<TSocket>["to"], text: string): void {
    const last = this.#pending.at(-1);
    if (last !== undefined && (last.to === to || (last.to !== null && to !== null && last.to.socket === to.socket))) {
      last.texts.push(text);
    } else {
      this.#pending.push({ to, texts: [text] });
    }
    if (this.#flushQueued) return;
    this.#flushQueued = true;
    queueMicrotask(() => this.flush());
  }

  #sendAll(socket: TSocket, messages: readonly string[]): void {
    for (const message of messages) this.#port.send(socket, message);
  }
}
