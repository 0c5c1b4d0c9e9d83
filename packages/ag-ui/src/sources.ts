import type { AgentChatEventFrame, AgentToolEventFrame } from "@agent-tools/core-runs/protocol";
import type { UIMessageChunk } from "ai";

/** The `type` of a chunk of the parent's own answer, in the turn in flight (see `AgUiTurnChunk`). */
export const AG_UI_TURN_CHUNK_TYPE = "agent-chat-chunk";

/**
 * One chunk of the parent's own answer in turn `turnId`, as a tab following the turn gets it: `index` counts the
 * turn's chunks from 0 (preliminary tool outputs aside), so a stream that follows the turn again drops what it has.
 *
 * @experimental New API: it may change without a major version.
 */
export type AgUiTurnChunk = {
  type: typeof AG_UI_TURN_CHUNK_TYPE;
  turnId: string;
  index: number;
  chunk: UIMessageChunk;
};

/** The `type` of a frame of a run below the top level (see `AgUiDescendantFrame`). */
export const AG_UI_DESCENDANT_TYPE = "agent-tool-descendant";

/**
 * A frame of a run dispatched below the parent's own runs: `path` names the runs from the parent's top-level run down
 * to the run that dispatched it (the frame's run is that run's child), as the dispatching child's registry sent it.
 *
 * @experimental New API: it may change without a major version.
 */
export type AgUiDescendantFrame = { type: typeof AG_UI_DESCENDANT_TYPE; path: string[]; frame: AgentToolEventFrame };

/**
 * What a projection reads: the parent's run frames and its conversation events (as its event socket carries them),
 * the chunks of its answer in the turn in flight, and the frames of the runs below its own.
 */
export type AgUiSource = AgentToolEventFrame | AgentChatEventFrame | AgUiTurnChunk | AgUiDescendantFrame;
