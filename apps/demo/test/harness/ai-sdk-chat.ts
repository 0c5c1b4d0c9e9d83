import {
  AbstractChat,
  type ChatState,
  type ChatStatus,
  type UIMessage,
  WebSocketChatTransport,
  type WebSocketChatTransportInitOptions,
} from "ai";

// The AI SDK's own chat (the `AbstractChat` that `useChat` drives) in Node, over the parent's chat socket: a client
// that sends, retries (`regenerate`) and resumes exactly as a page using `useChat` with `WebSocketChatTransport` does.

/** A chat's state in plain memory (React's `useChat` keeps it in React state). */
class MemoryChatState implements ChatState<UIMessage> {
  status: ChatStatus = "ready";
  error: Error | undefined = undefined;
  #messages: UIMessage[] = [];
  readonly #onChange: ((messages: UIMessage[]) => void) | undefined;

  constructor(onChange?: (messages: UIMessage[]) => void) {
    this.#onChange = onChange;
  }

  get messages(): UIMessage[] {
    return this.#messages;
  }

  set messages(messages: UIMessage[]) {
    this.#messages = messages;
    this.#onChange?.(messages);
  }

  pushMessage = (message: UIMessage) => {
    this.messages = [...this.messages, message];
  };

  popMessage = () => {
    this.messages = this.messages.slice(0, -1);
  };

  replaceMessage = (index: number, message: UIMessage) => {
    this.messages = this.messages.map((existing, at) => (at === index ? message : existing));
  };

  snapshot = <T>(thing: T): T => structuredClone(thing);
}

/**
 * The AI SDK chat of one conversation. `url()` is the parent's `/chat` WebSocket address at the time a connection
 * opens: a restarted runtime listens on another port, where a page would reconnect to the same address.
 */
export class AiSdkChat extends AbstractChat<UIMessage> {
  readonly #transport: WebSocketChatTransport<UIMessage>;

  /** `onChange` sees every state of the messages, as a page would render them. */
  constructor(url: () => string, chatId: string, options: { onChange?: (messages: UIMessage[]) => void } = {}) {
    class CurrentAddressWebSocket extends WebSocket {
      constructor(_url: string | URL, protocols?: string | string[]) {
        super(url(), protocols);
      }
    }
    const transport = new WebSocketChatTransport<UIMessage>({
      url: url(),
      webSocket: CurrentAddressWebSocket as unknown as NonNullable<
        WebSocketChatTransportInitOptions<UIMessage>["webSocket"]
      >,
    });
    super({ id: chatId, transport, state: new MemoryChatState(options.onChange) });
    this.#transport = transport;
  }

  /** Close the chat's socket (a later request opens a new one). */
  close(): void {
    this.#transport.close();
  }
}
