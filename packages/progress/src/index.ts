// reporter

// chunks
export type { MilestoneChunk, MilestoneChunkData, MilestoneUpdate } from "./milestones.js";
export { milestoneChunk, milestoneListing, readMilestones } from "./milestones.js";
export type { ProgressChunk, ProgressChunkData } from "./progress-snapshot.js";
export { progressChunk, progressSnapshot } from "./progress-snapshot.js";
// reports
export type { ProgressUpdate, ReportProgressOptions } from "./progress-update.js";
export { validateProgressUpdate } from "./progress-update.js";
export type {
  ProgressReporter,
  ProgressReporterOptions,
  ProgressTarget,
  ReportProgress,
} from "./report-progress.js";
export { createProgressReporter, DEFAULT_PROGRESS_THROTTLE_MS } from "./report-progress.js";
