// @agent-tools/progress: what a user of the package writes (its README's examples and API). What the workspace's own
// packages share is at "@agent-tools/progress/internal": not API.

// reporter
export { milestoneChunk, milestoneListing, readMilestones } from "./milestones.js";
export { progressChunk, progressSnapshot } from "./progress-snapshot.js";
export { validateProgressUpdate } from "./progress-update.js";
export { createProgressReporter } from "./report-progress.js";
