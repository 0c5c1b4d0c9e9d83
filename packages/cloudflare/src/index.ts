// Durable Object adapters of the agent-tools ports
export type { AgentToolChildRpc, ChildNamespace } from "./adapters/durable-object-child-transport.js";
export { childObjectName, DurableObjectChildTransport } from "./adapters/durable-object-child-transport.js";
export type { DurableObjectRunStoreStorage } from "./adapters/durable-object-run-store.js";
export { DurableObjectRunStore, RUN_STORE_TABLES } from "./adapters/durable-object-run-store.js";
export type { DurableObjectWakeupSchedulerStorage } from "./adapters/durable-object-wakeup-scheduler.js";
export { DurableObjectWakeupScheduler } from "./adapters/durable-object-wakeup-scheduler.js";
export { fromNdjson, NdjsonLines, toNdjson } from "./adapters/ndjson.js";
// the child host
export { AgentToolChild, DEFAULT_CHILD_WAKE_INTERVAL_MS } from "./child/agent-tool-child.js";
// WebSockets
export { NO_WEBSOCKET_EXTENSIONS, webSocketUpgrade } from "./websocket-upgrade.js";
