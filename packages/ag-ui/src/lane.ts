import { type BaseEvent, EventType } from "@ag-ui/core";
import {
  AGENT_MILESTONE_PART,
  AGENT_PROGRESS_PART,
  AGENT_STEP_RESET_PART,
  type AgentToolDisplay,
  definedProps,
  stringifyForText,
} from "@agent-tools/core-runs/protocol";

/**
 * What a projection keeps of one stream of chunks (a lane): a sub-agent run at any depth, or the parent's own answer
 * in a turn (`root`). Enough to continue it after a reconnect.
 */
export type LaneState = {
  /** The sub-agent's id in the stream (`subagentRunId`): the run id, under its parent's for a run below the top. */
  runId: string;
  /** The run ids from the top-level run down to this one (`[runId]` for a top-level run; `[]` for the answer). */
  path: string[];
  /** The sub-agent's name (its agent type): reusable across invocations, unlike the run id. */
  name: string;
  description?: string;
  /** The tool call that started it, as the stream names it. */
  parentToolCallId?: string;
  /** The sub-agent above it (a run below the top level). */
  parentLaneId?: string;
  /** The parent's own answer: its events carry no `subagentRunId`, and its tool call ids are the model's. */
  root?: true;
  /** `live` until a terminal; `suspended` after `interrupted` (a later result repairs it); `ended` after a hard one. */
  status: "live" | "suspended" | "ended";
  /** The newest lifecycle revision and durable sequence projected: anything not newer is a replay, and dropped. */
  revision: number;
  sequence: number;
  /** Open text, reasoning and tool-call streams (ids as the AG-UI events carry them) and the open step. */
  texts: string[];
  reasoning: string[];
  tools: Array<[toolCallId: string, toolCallName: string]>;
  step?: string;
  steps: number;
  /** The tool calls this lane made (their input complete), as the stream names them: a run they started may follow. */
  calls: string[];
  /** Waiting for the tool call that started it (`parentToolCallId`) to be sent: its frames are held until then. */
  waiting?: true;
};

/** A new lane, from a run's `started` frame (or a placeholder for a run whose start this stream never saw). */
export function newLane(
  path: readonly string[],
  started?: { agentType: string; display?: AgentToolDisplay; parentToolCallId?: string },
): LaneState {
  const runId = path.join("/");
  const description = typeof started?.display?.name === "string" ? started.display.name : undefined;
  const parentLaneId = path.length > 1 ? path.slice(0, -1).join("/") : undefined;
  const parentToolCallId =
    started?.parentToolCallId === undefined
      ? undefined
      : parentLaneId === undefined
        ? started.parentToolCallId
        : `${parentLaneId}/${started.parentToolCallId}`;
  return {
    runId,
    path: [...path],
    name: started?.agentType ?? path.at(-1) ?? runId,
    ...definedProps({ description, parentToolCallId, parentLaneId }),
    status: "live",
    revision: 0,
    sequence: 0,
    texts: [],
    reasoning: [],
    tools: [],
    steps: 0,
    calls: [],
  };
}

/** The lane of the parent's own answer in a turn: its messages are named under the answer's message id. */
export function answerLane(messageId: string): LaneState {
  return { ...newLane([messageId]), path: [], name: "answer", root: true };
}

/** The id a lane's stream id (text, reasoning, tool call) gets in the parent's stream: unique across runs. */
export function laneId(lane: Pick<LaneState, "runId">, id: string): string {
  return `${lane.runId}/${id}`;
}

/** A `CUSTOM` event's names (our addition: progress, milestones and step resets have no AG-UI event of their own). */
export const AG_UI_CUSTOM_EVENTS = {
  progress: "agent-tools.progress",
  milestone: "agent-tools.milestone",
  stepReset: "agent-tools.step-reset",
  repaired: "agent-tools.subagent-repaired",
} as const;

type Chunk = { type?: unknown; [key: string]: unknown };

const add = <T>(list: T[], item: T) => (list.includes(item) ? list : [...list, item]);
const remove = <T>(list: T[], item: T) => list.filter((other) => other !== item);

/** The field a lane's events carry: its run (none for the parent's own answer). */
const stampOf = (lane: LaneState) => (lane.root ? {} : { subagentRunId: lane.runId });

/** A tool call's id in the stream: the model's for the answer, under the run's id for a sub-agent. */
const toolIdOf = (lane: LaneState, id: string) => (lane.root ? id : laneId(lane, id));

/** The chunk's JSON value (a body may come as a JSON string), or `null`. */
export function readChunk(body: unknown): Chunk | null {
  const chunk = (typeof body === "string" ? safeParse(body) : body) as Chunk | null;
  return chunk !== null && typeof chunk === "object" && typeof chunk.type === "string" ? chunk : null;
}

/**
 * One `UIMessageChunk` of a lane as AG-UI events (stamped with its run unless it is the answer), updating the lane's
 * open streams. A delta whose stream is not open (it was closed when an earlier AG-UI run ended while the lane went
 * on) opens it again first. Chunks with no AG-UI meaning (`start`, `finish`, metadata, usage, approvals, preliminary
 * tool output) give nothing. A tool call whose input is complete is added to the lane's `calls`.
 */
export function chunkEvents(lane: LaneState, body: unknown): BaseEvent[] {
  const chunk = readChunk(body);
  if (chunk === null) return [];
  const stamp = stampOf(lane);
  switch (chunk.type) {
    case "text-start":
    case "text-delta":
    case "text-end":
      return messageEvents("text", lane, chunk, laneId(lane, String(chunk["id"])), stamp);
    case "reasoning-start":
    case "reasoning-delta":
    case "reasoning-end":
      return messageEvents("reasoning", lane, chunk, laneId(lane, String(chunk["id"])), stamp);
    case "tool-input-start":
    case "tool-input-delta":
    case "tool-input-available":
    case "tool-input-error":
    case "tool-output-available":
    case "tool-output-error":
    case "tool-output-denied":
      return toolEvents(lane, chunk, toolIdOf(lane, String(chunk["toolCallId"])), stamp);
    case "start-step": {
      if (lane.root) return [];
      const closing = closeStep(lane);
      lane.steps += 1;
      lane.step = `step-${lane.steps}`;
      return [...closing, { type: EventType.STEP_STARTED, stepName: lane.step, ...stamp } as BaseEvent];
    }
    case "finish-step":
      return closeStep(lane);
    case AGENT_PROGRESS_PART:
      return [custom(AG_UI_CUSTOM_EVENTS.progress, chunk["data"], stamp)];
    case AGENT_MILESTONE_PART:
      return [custom(AG_UI_CUSTOM_EVENTS.milestone, chunk["data"], stamp)];
    case AGENT_STEP_RESET_PART:
      return [custom(AG_UI_CUSTOM_EVENTS.stepReset, chunk["data"], stamp)];
    default:
      return [];
  }
}

/** Close every stream the lane holds open (before its end, or before the AG-UI run it is in ends). */
export function closeLane(lane: LaneState): BaseEvent[] {
  const stamp = stampOf(lane);
  const events: BaseEvent[] = [
    ...lane.texts.map((messageId) => ({ type: EventType.TEXT_MESSAGE_END, messageId, ...stamp }) as BaseEvent),
    ...lane.reasoning.map((messageId) => ({ type: EventType.REASONING_MESSAGE_END, messageId, ...stamp }) as BaseEvent),
    ...lane.tools.map(([toolCallId]) => ({ type: EventType.TOOL_CALL_END, toolCallId, ...stamp }) as BaseEvent),
    ...closeStep(lane),
  ];
  lane.texts = [];
  lane.reasoning = [];
  lane.tools = [];
  return events;
}

/** A streamed message (text or reasoning): its start, deltas and end, opening it again for a delta if it is closed. */
const STREAMS = {
  text: {
    open: "texts",
    start: EventType.TEXT_MESSAGE_START,
    content: EventType.TEXT_MESSAGE_CONTENT,
    end: EventType.TEXT_MESSAGE_END,
    role: "assistant",
  },
  reasoning: {
    open: "reasoning",
    start: EventType.REASONING_MESSAGE_START,
    content: EventType.REASONING_MESSAGE_CONTENT,
    end: EventType.REASONING_MESSAGE_END,
    role: "reasoning",
  },
} as const;

function messageEvents(
  kind: keyof typeof STREAMS,
  lane: LaneState,
  chunk: Chunk,
  messageId: string,
  stamp: object,
): BaseEvent[] {
  const stream = STREAMS[kind];
  const open = lane[stream.open].includes(messageId);
  const start = () => {
    lane[stream.open] = add(lane[stream.open], messageId);
    return { type: stream.start, messageId, role: stream.role, ...stamp } as BaseEvent;
  };
  if (chunk.type === `${kind}-start`) return open ? [] : [start()];
  if (chunk.type === `${kind}-end`) {
    if (!open) return [];
    lane[stream.open] = remove(lane[stream.open], messageId);
    return [{ type: stream.end, messageId, ...stamp } as BaseEvent];
  }
  const delta = typeof chunk["delta"] === "string" ? chunk["delta"] : "";
  if (delta === "") return [];
  return [...(open ? [] : [start()]), { type: stream.content, messageId, delta, ...stamp } as BaseEvent];
}

function toolEvents(lane: LaneState, chunk: Chunk, toolCallId: string, stamp: object): BaseEvent[] {
  const open = lane.tools.find(([id]) => id === toolCallId);
  const name = typeof chunk["toolName"] === "string" ? chunk["toolName"] : (open?.[1] ?? "tool");
  const start = (): BaseEvent[] => {
    if (open) return [];
    lane.tools = [...lane.tools, [toolCallId, name]];
    return [
      {
        type: EventType.TOOL_CALL_START,
        toolCallId,
        toolCallName: name,
        ...(lane.root ? { parentMessageId: lane.runId } : {}),
        ...stamp,
      } as BaseEvent,
    ];
  };
  const end = (): BaseEvent[] => {
    if (!lane.tools.some(([id]) => id === toolCallId)) return [];
    lane.tools = lane.tools.filter(([id]) => id !== toolCallId);
    return [{ type: EventType.TOOL_CALL_END, toolCallId, ...stamp } as BaseEvent];
  };
  switch (chunk.type) {
    case "tool-input-start":
      return start();
    case "tool-input-delta": {
      const delta = typeof chunk["inputTextDelta"] === "string" ? chunk["inputTextDelta"] : "";
      if (delta === "") return [];
      return [...start(), { type: EventType.TOOL_CALL_ARGS, toolCallId, delta, ...stamp } as BaseEvent];
    }
    case "tool-input-available":
    case "tool-input-error": {
      if (lane.calls.includes(toolCallId) && !open) return [];
      lane.calls = add(lane.calls, toolCallId);
      // The whole input: its arguments are sent here unless they streamed as deltas.
      const args = open ? [] : [{ type: EventType.TOOL_CALL_ARGS, toolCallId, delta: json(chunk["input"]), ...stamp }];
      return [...start(), ...(args as BaseEvent[]), ...end()];
    }
    case "tool-output-available": {
      if (chunk["preliminary"] === true) return [];
      return [...end(), result(toolCallId, json(chunk["output"]), stamp)];
    }
    case "tool-output-denied":
      return [...end(), result(toolCallId, "The tool call was denied", stamp)];
    default: {
      const errorText = typeof chunk["errorText"] === "string" ? chunk["errorText"] : "The tool failed";
      return [...end(), result(toolCallId, errorText, stamp)];
    }
  }
}

function result(toolCallId: string, content: string, stamp: object): BaseEvent {
  return {
    type: EventType.TOOL_CALL_RESULT,
    messageId: `${toolCallId}/result`,
    toolCallId,
    content,
    ...stamp,
  } as BaseEvent;
}

function closeStep(lane: LaneState): BaseEvent[] {
  if (lane.step === undefined) return [];
  const stepName = lane.step;
  delete lane.step;
  return [{ type: EventType.STEP_FINISHED, stepName, ...stampOf(lane) } as BaseEvent];
}

function custom(name: string, value: unknown, stamp: object): BaseEvent {
  return { type: EventType.CUSTOM, name, value: value ?? null, ...stamp } as BaseEvent;
}

const json = (value: unknown): string => stringifyForText(value ?? null);

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
