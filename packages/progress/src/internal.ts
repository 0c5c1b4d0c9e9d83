// "@agent-tools/progress/internal": what the workspace's own packages share. Not API: it changes without a
// major version. What a user writes is at "@agent-tools/progress".
// chunks
export type { MilestoneChunk, MilestoneChunkData, MilestoneUpdate } from "./milestones.js";
export type { ProgressChunk, ProgressChunkData } from "./progress-snapshot.js";
// reports
export type { ProgressUpdate, ReportProgressOptions } from "./progress-update.js";
export type { ProgressReporter, ProgressReporterOptions, ProgressTarget, ReportProgress } from "./report-progress.js";
export { DEFAULT_PROGRESS_THROTTLE_MS } from "./report-progress.js";
