import { isObject } from "@agent-tools/core-runs/protocol";
import type { UIMessage, UIMessageChunk } from "ai";
import { readPartialJson } from "./partial-json.js";
import {
  currentStepStart,
  defined,
  findInCurrentStep,
  findToolInvocation,
  isDynamicTool,
  isTool,
  type Part,
  replaceAt,
  staticToolName,
  updateToolPart,
} from "./ui-message-parts.js";

/** The parts of an assistant message, as the AI SDK renders them. */
export type UIMessageParts = UIMessage["parts"];

/** A tool call whose input is still streaming. */
type PartialToolCall = {
  readonly text: string;
  readonly inputEncoding: unknown;
  readonly toolName: string;
  readonly dynamic: boolean;
  readonly title: unknown;
  readonly toolMetadata: unknown;
};

/**
 * An assistant message being assembled from `UIMessageChunk`s: its parts, plus the bookkeeping the AI SDK keeps
 * while it streams (open text and reasoning parts, tool calls whose input is streaming). Immutable: every
 * {@link applyUIMessageChunk} returns a new assembly and never changes the one it was given.
 */
export type UIMessageAssembly = {
  readonly messageId: string;
  readonly parts: UIMessageParts;
  /** The text of the last in-band `error` chunk (the AI SDK reports it through `onError`, not as a part). */
  readonly errorText: string | null;
  /** @internal */
  readonly activeTextParts: Readonly<Record<string, number>>;
  /** @internal */
  readonly activeReasoningParts: Readonly<Record<string, number>>;
  /** @internal */
  readonly partialToolCalls: Readonly<Record<string, PartialToolCall>>;
};

type ChunkField =
  | "type"
  | "id"
  | "delta"
  | "providerMetadata"
  | "citations"
  | "kind"
  | "mediaType"
  | "url"
  | "sourceId"
  | "title"
  | "filename"
  | "parts"
  | "toolCallId"
  | "toolName"
  | "inputEncoding"
  | "providerExecuted"
  | "toolMetadata"
  | "dynamic"
  | "inputTextDelta"
  | "input"
  | "errorText"
  | "approvalId"
  | "approvalDescriptor"
  | "inputSchemaInput"
  | "reason"
  | "isAutomatic"
  | "signature"
  | "approved"
  | "output"
  | "preliminary"
  | "messageId"
  | "transient"
  | "data";
/** A chunk read as untrusted data: every field may be missing or of the wrong type. */
type ChunkBody = { readonly [K in ChunkField]?: unknown };

const EMPTY: Readonly<Record<string, never>> = Object.freeze({});

/** An empty assembly (no parts), as `readUIMessageStream` starts without a `message`. */
export function createUIMessageAssembly(messageId = ""): UIMessageAssembly {
  return {
    messageId,
    parts: [],
    errorText: null,
    activeTextParts: EMPTY,
    activeReasoningParts: EMPTY,
    partialToolCalls: EMPTY,
  };
}

// ---------- small immutable helpers ----------

const isString = (value: unknown): value is string => typeof value === "string";

function getOwn<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
function withKey<T>(record: Readonly<Record<string, T>>, key: string, value: T): Readonly<Record<string, T>> {
  return { ...record, [key]: value };
}
function withoutKey<T>(record: Readonly<Record<string, T>>, key: string): Readonly<Record<string, T>> {
  if (!Object.hasOwn(record, key)) return record;
  const { [key]: _removed, ...rest } = record;
  return rest;
}

const partsOf = (assembly: UIMessageAssembly) => assembly.parts as unknown as readonly Part[];
const withParts = (assembly: UIMessageAssembly, parts: readonly Part[]): UIMessageAssembly => ({
  ...assembly,
  parts: parts as unknown as UIMessageParts,
});

// ---------- the step ----------

/**
 * Apply one `UIMessageChunk` to an assembly: synchronous and pure. On a well-formed chunk stream the parts equal
 * what the AI SDK's own `readUIMessageStream` assembles (checked by differential tests). Where the SDK would stop
 * with an error (a delta for a text part that never started, a result for an unknown tool call) or a chunk is
 * malformed, this step skips that one chunk and keeps going, so one bad chunk never blanks a timeline.
 * Transient data parts are not parts (as in the SDK); neither is `data-agent-progress`, which is ephemeral.
 * Message metadata is not tracked.
 */
export function applyUIMessageChunk(assembly: UIMessageAssembly, chunk: UIMessageChunk): UIMessageAssembly {
  const body = chunk as unknown as ChunkBody;
  const type = body.type;
  if (!isString(type)) return assembly;
  const parts = partsOf(assembly);
  switch (type) {
    case "text-start":
    case "reasoning-start":
      return startTextOrReasoning(assembly, body, parts, type);
    case "text-delta":
    case "reasoning-delta":
      return appendTextOrReasoning(assembly, body, parts, type);
    case "text-end":
    case "reasoning-end":
      return endTextOrReasoning(assembly, body, parts, type);
    case "custom":
      return withParts(assembly, [
        ...parts,
        defined({ type: "custom", kind: body.kind, providerMetadata: body.providerMetadata }),
      ]);
    case "file":
    case "reasoning-file":
      return withParts(assembly, [
        ...parts,
        defined({
          type,
          mediaType: body.mediaType,
          url: body.url,
          ...(body.providerMetadata != null ? { providerMetadata: body.providerMetadata } : {}),
        }),
      ]);
    case "source-url":
      return withParts(assembly, [
        ...parts,
        defined({
          type,
          sourceId: body.sourceId,
          url: body.url,
          title: body.title,
          providerMetadata: body.providerMetadata,
        }),
      ]);
    case "source-document":
      return withParts(assembly, [
        ...parts,
        defined({
          type,
          sourceId: body.sourceId,
          mediaType: body.mediaType,
          title: body.title,
          filename: body.filename,
          providerMetadata: body.providerMetadata,
        }),
      ]);
    case "steering-message":
      return withParts(assembly, [...parts, defined({ type, id: body.id, parts: body.parts })]);
    case "tool-input-start":
      return startToolInput(assembly, body, parts);
    case "tool-input-delta":
      return appendToolInput(assembly, body, parts);
    case "tool-input-available":
    case "tool-input-error":
      return completeToolInput(assembly, body, parts, type);
    case "tool-approval-request":
      return requestApproval(assembly, body, parts);
    case "tool-approval-response":
      return respondToApproval(assembly, body, parts);
    case "tool-output-denied": {
      const index = findToolInvocation(parts, body.toolCallId);
      const part = parts[index];
      if (!part) return assembly;
      return withParts(assembly, replaceAt(parts, index, { ...part, state: "output-denied" }));
    }
    case "tool-output-available":
    case "tool-output-error":
      return completeToolOutput(assembly, body, parts, type);
    case "start-step":
      return withParts(assembly, [...parts, { type: "step-start" }]);
    case "reset-step":
      return resetStep(assembly, parts);
    case "start":
      return startMessage(assembly, body);
    case "error":
      return isString(body.errorText) ? { ...assembly, errorText: body.errorText } : assembly;
    default:
      return applyDataPart(assembly, body, parts, type);
  }
}

/** A text or reasoning part opens (streaming). */
function startTextOrReasoning(
  assembly: UIMessageAssembly,
  body: ChunkBody,
  parts: readonly Part[],
  type: string,
): UIMessageAssembly {
  if (!isString(body.id)) return assembly;
  const isText = type === "text-start";
  const part = defined(
    isText
      ? { type: "text", text: "", providerMetadata: body.providerMetadata, state: "streaming" }
      : { type: "reasoning", id: body.id, text: "", providerMetadata: body.providerMetadata, state: "streaming" },
  );
  return {
    ...withParts(assembly, [...parts, part]),
    ...(isText
      ? { activeTextParts: withKey(assembly.activeTextParts, body.id, parts.length) }
      : { activeReasoningParts: withKey(assembly.activeReasoningParts, body.id, parts.length) }),
  };
}

/** Text for an open text or reasoning part. */
function appendTextOrReasoning(
  assembly: UIMessageAssembly,
  body: ChunkBody,
  parts: readonly Part[],
  type: string,
): UIMessageAssembly {
  const isText = type === "text-delta";
  if (!isString(body.id) || !isString(body.delta)) return assembly;
  const index = getOwn(isText ? assembly.activeTextParts : assembly.activeReasoningParts, body.id);
  const part = index === undefined ? undefined : parts[index];
  if (index === undefined || !part) return assembly;
  const text = `${isString(part.text) ? part.text : ""}${body.delta}`;
  const next = defined({ ...part, text, providerMetadata: body.providerMetadata ?? part.providerMetadata });
  return withParts(assembly, replaceAt(parts, index, next));
}

/** An open text or reasoning part is done. */
function endTextOrReasoning(
  assembly: UIMessageAssembly,
  body: ChunkBody,
  parts: readonly Part[],
  type: string,
): UIMessageAssembly {
  const isText = type === "text-end";
  if (!isString(body.id)) return assembly;
  const active = isText ? assembly.activeTextParts : assembly.activeReasoningParts;
  const index = getOwn(active, body.id);
  const part = index === undefined ? undefined : parts[index];
  if (index === undefined || !part) return assembly;
  const next = defined({
    ...part,
    state: "done",
    ...(isText && body.citations != null ? { citations: body.citations } : {}),
    providerMetadata: body.providerMetadata ?? part.providerMetadata,
  });
  return {
    ...withParts(assembly, replaceAt(parts, index, next)),
    ...(isText
      ? { activeTextParts: withoutKey(active, body.id) }
      : { activeReasoningParts: withoutKey(active, body.id) }),
  };
}

/** A tool call whose input will stream. */
function startToolInput(assembly: UIMessageAssembly, body: ChunkBody, parts: readonly Part[]): UIMessageAssembly {
  if (!isString(body.toolCallId) || !isString(body.toolName)) return assembly;
  const dynamic = body.dynamic === true;
  const partial: PartialToolCall = {
    text: "",
    inputEncoding: body.inputEncoding,
    toolName: body.toolName,
    dynamic,
    title: body.title,
    toolMetadata: body.toolMetadata,
  };
  const next = updateToolPart(
    parts,
    {
      toolCallId: body.toolCallId,
      toolName: body.toolName,
      state: "input-streaming",
      inputEncoding: body.inputEncoding,
      input: undefined,
      providerExecuted: body.providerExecuted,
      title: body.title,
      toolMetadata: body.toolMetadata,
      providerMetadata: body.providerMetadata,
    },
    dynamic,
  );
  return {
    ...withParts(assembly, next),
    partialToolCalls: withKey(assembly.partialToolCalls, body.toolCallId, partial),
  };
}

/** More of a streaming tool input (partial JSON, or text). */
function appendToolInput(assembly: UIMessageAssembly, body: ChunkBody, parts: readonly Part[]): UIMessageAssembly {
  if (!isString(body.toolCallId) || !isString(body.inputTextDelta)) return assembly;
  const partial = getOwn(assembly.partialToolCalls, body.toolCallId);
  if (!partial) return assembly;
  const text = partial.text + body.inputTextDelta;
  const input = partial.inputEncoding === "text" ? text : readPartialJson(text);
  const next = updateToolPart(
    parts,
    {
      toolCallId: body.toolCallId,
      toolName: partial.toolName,
      state: "input-streaming",
      inputEncoding: partial.inputEncoding,
      input,
      rawInput: text,
      title: partial.title,
      toolMetadata: partial.toolMetadata,
    },
    partial.dynamic,
  );
  return {
    ...withParts(assembly, next),
    partialToolCalls: withKey(assembly.partialToolCalls, body.toolCallId, { ...partial, text }),
  };
}

/** A tool call's whole input, or the error that it could not be read. */
function completeToolInput(
  assembly: UIMessageAssembly,
  body: ChunkBody,
  parts: readonly Part[],
  type: string,
): UIMessageAssembly {
  if (!isString(body.toolCallId) || !isString(body.toolName)) return assembly;
  const isError = type === "tool-input-error";
  if (isError && !isString(body.errorText)) return assembly;
  let dynamic = body.dynamic === true;
  if (isError) {
    const existing = findInCurrentStep(parts, (part) => isTool(part) && part.toolCallId === body.toolCallId);
    const existingPart = existing >= 0 ? parts[existing] : undefined;
    if (existingPart) dynamic = isDynamicTool(existingPart);
  }
  const next = updateToolPart(
    parts,
    {
      toolCallId: body.toolCallId,
      toolName: body.toolName,
      state: isError ? "output-error" : "input-available",
      input: body.input,
      ...(isError ? { errorText: body.errorText } : { title: body.title }),
      providerExecuted: body.providerExecuted,
      providerMetadata: body.providerMetadata,
      toolMetadata: body.toolMetadata,
    },
    dynamic,
  );
  return withParts(assembly, next);
}

/** A tool call waits for an approval. */
function requestApproval(assembly: UIMessageAssembly, body: ChunkBody, parts: readonly Part[]): UIMessageAssembly {
  if (!isString(body.approvalId)) return assembly;
  const index = findToolInvocation(parts, body.toolCallId);
  const part = parts[index];
  if (!part) return assembly;
  const approval = {
    id: body.approvalId,
    ...(body.approvalDescriptor != null ? { descriptor: body.approvalDescriptor } : {}),
    ...(Object.hasOwn(body, "inputSchemaInput") ? { inputSchemaInput: body.inputSchemaInput } : {}),
    ...(body.reason != null ? { requestReason: body.reason } : {}),
    ...(body.isAutomatic === true ? { isAutomatic: true } : {}),
    ...(body.signature != null ? { signature: body.signature } : {}),
  };
  return withParts(assembly, replaceAt(parts, index, { ...part, state: "approval-requested", approval }));
}

/** The answer to an approval. */
function respondToApproval(assembly: UIMessageAssembly, body: ChunkBody, parts: readonly Part[]): UIMessageAssembly {
  if (!isString(body.approvalId)) return assembly;
  const index = parts.findIndex(
    (part) => isTool(part) && isObject(part.approval) && part.approval["id"] === body.approvalId,
  );
  const part = parts[index];
  if (!part) return assembly;
  const approval = {
    ...(isObject(part.approval) ? part.approval : {}),
    id: body.approvalId,
    approved: body.approved,
    ...(body.reason != null ? { reason: body.reason } : {}),
  };
  const next: Record<string, unknown> = { ...part, state: "approval-responded", approval };
  if (body.providerExecuted != null) next["providerExecuted"] = body.providerExecuted;
  if (body.providerMetadata != null) next["callProviderMetadata"] = body.providerMetadata;
  return withParts(assembly, replaceAt(parts, index, next as Part));
}

/** A tool call's output, or its error. */
function completeToolOutput(
  assembly: UIMessageAssembly,
  body: ChunkBody,
  parts: readonly Part[],
  type: string,
): UIMessageAssembly {
  if (!isString(body.toolCallId)) return assembly;
  const isError = type === "tool-output-error";
  if (isError && !isString(body.errorText)) return assembly;
  const index = findToolInvocation(parts, body.toolCallId);
  const part = parts[index];
  if (!part) return assembly;
  const dynamic = isDynamicTool(part);
  const toolName = dynamic ? String(part.toolName) : staticToolName(part);
  const next = updateToolPart(
    parts,
    {
      toolCallId: body.toolCallId,
      toolName,
      state: isError ? "output-error" : "output-available",
      input: part.input,
      ...(isError
        ? { errorText: body.errorText, ...(dynamic ? {} : { rawInput: part.rawInput }) }
        : { output: body.output, preliminary: body.preliminary }),
      providerExecuted: body.providerExecuted,
      providerMetadata: body.providerMetadata,
      title: part.title,
      toolMetadata: body.toolMetadata ?? part.toolMetadata,
    },
    dynamic,
    index,
  );
  return withParts(assembly, next);
}

/** The current step is dropped (its parts and the open bookkeeping). */
function resetStep(assembly: UIMessageAssembly, parts: readonly Part[]): UIMessageAssembly {
  const start = currentStepStart(parts);
  return {
    ...withParts(assembly, start < parts.length ? parts.slice(0, start) : parts),
    activeTextParts: EMPTY,
    activeReasoningParts: EMPTY,
    partialToolCalls: EMPTY,
  };
}

/** A `start` chunk. */
function startMessage(assembly: UIMessageAssembly, body: ChunkBody): UIMessageAssembly {
  // `readUIMessageStream` resets the message when a `start` names a different message id.
  const messageId = body.messageId;
  if (messageId == null) return assembly;
  if (!isString(messageId)) return assembly;
  if (messageId === assembly.messageId) return assembly;
  return { ...createUIMessageAssembly(messageId), errorText: assembly.errorText };
}

/** A `data-*` part (and the chunks that change no part). */
function applyDataPart(
  assembly: UIMessageAssembly,
  body: ChunkBody,
  parts: readonly Part[],
  type: string,
): UIMessageAssembly {
  if (!type.startsWith("data-")) return assembly; // finish, finish-step, abort, message-metadata, unknown
  if (body.transient === true || type === "data-agent-progress") return assembly;
  const id = body.id;
  const existing = id != null ? parts.findIndex((part) => part.type === type && part.id === id) : -1;
  const current = parts[existing];
  if (current) return withParts(assembly, replaceAt(parts, existing, { ...current, data: body.data }));
  return withParts(assembly, [...parts, { ...body, type }]);
}

/** The parts a whole chunk sequence assembles to (a fold of {@link applyUIMessageChunk}). */
export function assembleUIMessageParts(chunks: Iterable<UIMessageChunk>): UIMessageParts {
  let assembly = createUIMessageAssembly();
  for (const chunk of chunks) assembly = applyUIMessageChunk(assembly, chunk);
  return assembly.parts;
}
