import type { AgentToolRunState } from "@agent-tools/react";
import { getToolName } from "ai";
import type { ReactNode } from "react";
import { describeInput, runName } from "./format.js";
import { type RunActions, RunCard } from "./run-card.js";
import { closedByTurn, outputRunId, type ToolCallContext, type ToolPart, toolCallState } from "./tool-call-state.js";

/**
 * The background run a tool's result names (a detached run it started), if the page knows it. A child's own result
 * names its run too (a failure carries its `runId`): that run is the call's own, not one in the background.
 */
function startedBackgroundRun(
  part: ToolPart,
  runsById: Readonly<Record<string, AgentToolRunState>>,
): AgentToolRunState | null {
  const runId = outputRunId(part);
  const run = runId !== null && Object.hasOwn(runsById, runId) ? runsById[runId] : undefined;
  return run?.detached ? run : null;
}

/** The call has its result (or never will get one from a tool): the runs it started are over. */
const isSettled = (part: ToolPart) =>
  part.state === "output-available" || part.state === "output-error" || part.state === "output-denied";

/**
 * One tool call of the assistant: its name and input as a person reads them, its state in step with its runs and
 * its turn, and the child runs it started (siblings side by side, in display order).
 */
export function ToolCall({
  part,
  context,
  runsById,
  actions,
}: {
  part: ToolPart;
  context: ToolCallContext;
  runsById: Readonly<Record<string, AgentToolRunState>>;
  actions: RunActions;
}): ReactNode {
  const name = getToolName(part);
  const state = toolCallState(part, context);
  const background = startedBackgroundRun(part, runsById);
  return (
    // A group, not a region: a tool called twice would make two landmarks of one name.
    // biome-ignore lint/a11y/useSemanticElements: a tool call groups its header and runs; a fieldset is for form controls
    <section className="tool" role="group" aria-label={`Tool call: ${name}`} data-tool-call-id={part.toolCallId}>
      <div className="tool-head">
        <span className="tool-name">{name}</span>
        <span className="tool-input">{describeInput(part.input, 160)}</span>
        <span className={`tool-state t-${state.tone}`} data-state={state.label}>
          {state.label}
        </span>
      </div>
      {/* A call Stop closed says so in its header ("stopped by you"), not a second time in the server's words. */}
      {part.state === "output-error" && part.errorText && closedByTurn(part.errorText) !== "stop" && (
        <p className="tool-error">{part.errorText}</p>
      )}
      {background && (
        <p className="tool-note">Started “{runName(background)}” in the background: follow it under Background runs.</p>
      )}
      {context.runs.length > 0 && (
        <div className="runs">
          {context.runs.map((run) => (
            <RunCard
              key={run.runId}
              run={run}
              actions={actions}
              cancelCause={state.cancelCause}
              isCallSettled={isSettled(part)}
            />
          ))}
        </div>
      )}
    </section>
  );
}
