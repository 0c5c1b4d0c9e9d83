import type { UIMessageChunk } from "ai";

/**
 * Watches a child turn's chunks and tells what they mean for the run: the assistant text of the last step that
 * had text (the default summary), an in-band stream error, and tool calls that never got a server-side result
 * (client-side tools are not available to a headless child).
 */
export class TurnObserver {
  #stepText = "";
  #lastText = "";
  #error: string | undefined;
  readonly #pendingTools = new Map<string, string>();

  observe(chunk: UIMessageChunk): void {
    switch (chunk.type) {
      case "start-step":
        this.#stepText = "";
        break;
      case "text-delta":
        this.#stepText += chunk.delta;
        this.#lastText = this.#stepText;
        break;
      case "error":
        this.#error ??= chunk.errorText || "The child's stream reported an error";
        break;
      case "tool-input-available":
        if (chunk.providerExecuted !== true) this.#pendingTools.set(chunk.toolCallId, chunk.toolName);
        break;
      case "tool-input-error":
      case "tool-output-available":
      case "tool-output-error":
      case "tool-output-denied":
        this.#pendingTools.delete(chunk.toolCallId);
        break;
      default:
        break;
    }
  }

  /** The assistant text of the last step that produced text ("" when none did). */
  get text(): string {
    return this.#lastText;
  }

  /** The first in-band error, if any. */
  get error(): string | undefined {
    return this.#error;
  }

  /** Names of tools called without a server-side execution, in call order. */
  get unexecutedTools(): string[] {
    return [...new Set(this.#pendingTools.values())];
  }
}
