import type { TestProject } from "vitest/node";
import { readDemoConfig } from "../scripts/demo-config.mjs";

// Read wrangler.jsonc once for the whole run (loading wrangler takes a second or so) and hand it to every test file
// through `inject("demoConfig")` (test/harness/demo.ts).
export function setup(project: TestProject): void {
  project.provide("demoConfig", readDemoConfig());
}
