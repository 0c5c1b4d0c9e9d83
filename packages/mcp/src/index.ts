// What the workspace's own packages share is at "@agent-tools/mcp/internal" (not API).
export { createMcpTaskEndpoint, McpTaskEndpoint } from "./mcp-task-endpoint.js";
