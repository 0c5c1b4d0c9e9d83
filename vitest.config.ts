import { defineConfig } from "vitest/config";

// One run over every workspace project; each package/app has its own vitest.config.ts.
// The JSON report is what .ci/run reads to print its closing "N passed, N failed" line.
export default defineConfig({
  test: {
    projects: [
      "packages/*/vitest.config.ts",
      "apps/*/vitest.config.ts",
      "bench/*/vitest.config.ts",
      "tools/*/vitest.config.ts",
    ],
    reporters: ["default", ["json", { outputFile: "test-results/vitest.json" }]],
  },
});
