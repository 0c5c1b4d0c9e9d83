import { Assistant } from "./assistant.js";

/**
 * The Assistant for a page built on stock `useChat` alone (`web/plain.html`): the same children, tools and model,
 * but its agent tools stream each child's answer into the tool call's part (`preliminaryResults`), so the page shows
 * the children working without the event socket. Routed at `/agents/plain/<name>/…`.
 */
export class PlainChatAssistant extends Assistant {
  protected override readonly preliminaryResults = true;
}
