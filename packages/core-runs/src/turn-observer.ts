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
  readonly #inputs = new Map<string, unknown>();
  /** Approval requests by toolCallId (the AI SDK's `tool-approval-request`), until the call has an outcome. */
  readonly #approvals = new Map<string, string>();

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
        if (chunk.providerExecuted !== true) {
          this.#pendingTools.set(chunk.toolCallId, chunk.toolName);
          this.#inputs.set(chunk.toolCallId, chunk.input);
        }
        break;
      case "tool-approval-request":
        this.#approvals.set(chunk.toolCallId, chunk.approvalId);
        break;
      case "tool-input-error":
      case "tool-output-available":
      case "tool-output-error":
      case "tool-output-denied":
        if (chunk.type === "tool-output-available" && chunk.preliminary === true) break;
        this.#pendingTools.delete(chunk.toolCallId);
        this.#approvals.delete(chunk.toolCallId);
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

  /** Names of tools called without a server-side execution (nor an approval to wait for), in call order. */
  get unexecutedTools(): string[] {
    const waiting = new Set(this.#approvals.keys());
    return [...new Set([...this.#pendingTools].filter(([id]) => !waiting.has(id)).map(([, name]) => name))];
  }

  /** Tool calls waiting for an approval (asked, no outcome yet): the run pauses until they are answered. */
  get pendingApprovals(): Array<{ approvalId: string; toolCallId: string; toolName: string; input: unknown }> {
    return [...this.#approvals].map(([toolCallId, approvalId]) => ({
      approvalId,
      toolCallId,
      toolName: this.#pendingTools.get(toolCallId) ?? "tool",
      input: this.#inputs.get(toolCallId),
    }));
  }
}
