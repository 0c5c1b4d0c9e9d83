// The parts of an assistant message as plain, immutable data, and the AI SDK's rules for updating its tool parts:
// the helpers of `applyUIMessageChunk` (internal to this package).

import { definedProps } from "@agent-tools/core-runs/protocol";

type PartField =
  | "id"
  | "state"
  | "text"
  | "data"
  | "toolCallId"
  | "toolName"
  | "input"
  | "rawInput"
  | "title"
  | "toolMetadata"
  | "approval"
  | "providerExecuted"
  | "providerMetadata";
/** A part read as plain data: every field but `type` may be missing or of any type. */
export type Part = { readonly type: string } & { readonly [K in PartField]?: unknown };

/** The object without its `undefined` fields: the SDK writes `field: undefined` where we leave the field out. */
export function defined(fields: Record<string, unknown>): Part {
  return definedProps(fields) as Part;
}

export function replaceAt(parts: readonly Part[], index: number, part: Part): Part[] {
  const next = parts.slice();
  next[index] = part;
  return next;
}

const isStaticTool = (part: Part) => part.type.startsWith("tool-");
export const isDynamicTool = (part: Part) => part.type === "dynamic-tool";
export const isTool = (part: Part) => isStaticTool(part) || isDynamicTool(part);
export const staticToolName = (part: Part) => part.type.split("-").slice(1).join("-");
const isResultState = (state: unknown) => state === "output-available" || state === "output-error";

/** Index of the first part of the current step (after the last `step-start`). */
export function currentStepStart(parts: readonly Part[]): number {
  for (let index = parts.length - 1; index >= 0; index--) {
    if (parts[index]?.type === "step-start") return index + 1;
  }
  return 0;
}
export function findInCurrentStep(parts: readonly Part[], predicate: (part: Part) => boolean): number {
  for (let index = currentStepStart(parts); index < parts.length; index++) {
    const part = parts[index];
    if (part && predicate(part)) return index;
  }
  return -1;
}
/** The tool part of a call: in the current step first, else the latest anywhere (the SDK's `getToolInvocation`). */
export function findToolInvocation(parts: readonly Part[], toolCallId: unknown): number {
  const inStep = findInCurrentStep(parts, (part) => isTool(part) && part.toolCallId === toolCallId);
  if (inStep >= 0) return inStep;
  for (let index = parts.length - 1; index >= 0; index--) {
    const part = parts[index];
    if (part && isTool(part) && part.toolCallId === toolCallId) return index;
  }
  return -1;
}

// ---------- tool parts (the SDK's updateToolPart / updateDynamicToolPart) ----------

type ToolUpdate = {
  toolCallId: string;
  toolName: string;
  state: string;
  input?: unknown;
  output?: unknown;
  errorText?: unknown;
  rawInput?: unknown;
  inputEncoding?: unknown;
  preliminary?: unknown;
  providerExecuted?: unknown;
  providerMetadata?: unknown;
  title?: unknown;
  toolMetadata?: unknown;
};

export function updateToolPart(parts: readonly Part[], update: ToolUpdate, dynamic: boolean, existing = -1): Part[] {
  const index =
    existing >= 0
      ? existing
      : findInCurrentStep(
          parts,
          (part) => (dynamic ? isDynamicTool(part) : isStaticTool(part)) && part.toolCallId === update.toolCallId,
        );
  const metadataField = isResultState(update.state) ? "resultProviderMetadata" : "callProviderMetadata";
  const current = index >= 0 ? parts[index] : undefined;
  if (current) {
    const next: Record<string, unknown> = {
      ...current,
      state: update.state,
      ...(dynamic ? { toolName: update.toolName } : { type: `tool-${update.toolName}` }),
      input: update.input,
      output: update.output,
      errorText: update.errorText,
      rawInput: update.rawInput,
      inputEncoding: update.inputEncoding ?? undefined,
      preliminary: update.preliminary,
      providerExecuted: update.providerExecuted ?? current.providerExecuted,
    };
    if (update.title !== undefined) next["title"] = update.title;
    if (update.toolMetadata !== undefined) next["toolMetadata"] = update.toolMetadata;
    if (update.providerMetadata != null) next[metadataField] = update.providerMetadata;
    return replaceAt(parts, index, defined(next));
  }
  const created = defined({
    type: dynamic ? "dynamic-tool" : `tool-${update.toolName}`,
    ...(dynamic ? { toolName: update.toolName } : {}),
    toolCallId: update.toolCallId,
    state: update.state,
    title: update.title,
    toolMetadata: update.toolMetadata,
    input: update.input,
    inputEncoding: update.inputEncoding ?? undefined,
    output: update.output,
    // The SDK's new dynamic-tool part has no rawInput (its static one does).
    rawInput: dynamic ? undefined : update.rawInput,
    errorText: update.errorText,
    providerExecuted: update.providerExecuted,
    preliminary: update.preliminary,
    ...(update.providerMetadata != null ? { [metadataField]: update.providerMetadata } : {}),
  });
  return [...parts, created];
}
