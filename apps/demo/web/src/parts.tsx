import { AGENT_MILESTONE_PART } from "@agent-tools/core-runs/protocol";
import { getToolName, isToolUIPart, type UIMessage } from "ai";
import type { ReactNode } from "react";
import { describeInput, describeValue } from "./format.js";
import { looksLikeJson, StructuredText } from "./structured-value.js";

export type MessagePart = UIMessage["parts"][number];
export type ToolPart = Extract<MessagePart, { toolCallId: string }>;

export function isToolPart(part: MessagePart): part is ToolPart {
  return isToolUIPart(part);
}

type MilestoneData = { milestone?: unknown; name?: unknown; message?: unknown };

/**
 * One part of a child's message in a compact timeline (run cards and drill-in): text (JSON text — structured
 * output — formatted), reasoning, the child's own tool calls, milestones. Other parts (step boundaries, progress,
 * sources) render nothing.
 */
export function TimelinePart({ part }: { part: MessagePart }): ReactNode {
  if (part.type === "text") {
    if (part.text === "") return null;
    return looksLikeJson(part.text) ? <StructuredText text={part.text} /> : <p className="t-text">{part.text}</p>;
  }
  if (part.type === "reasoning") return part.text === "" ? null : <p className="t-reasoning">{part.text}</p>;
  if (isToolPart(part)) {
    const outcome =
      part.state === "output-available"
        ? ` ✓ ${describeValue(part.output, 90)}`
        : part.state === "output-error"
          ? ` ✗ ${part.errorText ?? "failed"}`
          : " …";
    return (
      <p className="t-tool">
        → {getToolName(part)}(<code>{describeInput(part.input, 80)}</code>){outcome}
      </p>
    );
  }
  if (part.type === AGENT_MILESTONE_PART) {
    const data = ((part as { data?: unknown }).data ?? {}) as MilestoneData;
    const name = typeof data.milestone === "string" ? data.milestone : String(data.name ?? "milestone");
    return (
      <p className="t-milestone">
        ◆ {name}
        {typeof data.message === "string" && data.message !== name ? ` — ${data.message}` : ""}
      </p>
    );
  }
  return null;
}

/** A stable-enough key for a part in a list that only grows at its end. */
export function partKey(part: MessagePart, index: number): string {
  return isToolPart(part) ? `tool-${part.toolCallId}` : `${part.type}-${index}`;
}
