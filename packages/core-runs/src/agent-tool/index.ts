// agentTool() for the AI SDK, and following a run's frames into the child's message.
export type { AgentToolOptions, AgentToolOutput, AgentToolPreliminaryOutput } from "./agent-tool.js";
export { agentTool, agentToolModelOutput, agentToolRunId } from "./agent-tool.js";
export type { CompletedSteps } from "./assemble-message.js";
export { assembleMessage, completedSteps } from "./assemble-message.js";
