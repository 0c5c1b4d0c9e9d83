import { defineProject } from "vitest/config";

// Workspace packages resolve to their TypeScript sources. Tests run in vite's server (SSR) environment, whose
// conditions are separate from `resolve.conditions`; setting them replaces vite's defaults, so these repeat them.
const SOURCE_CONDITIONS = ["@agent-tools/source", "module", "node", "development|production"];

export default defineProject({
  resolve: { conditions: ["@agent-tools/source"] },
  ssr: { resolve: { conditions: SOURCE_CONDITIONS } },
  test: {
    name: "demo",
    include: ["test/**/*.test.ts"],
    environment: "node",
    // wrangler.jsonc, read once and provided to the workerd tests (test/harness/demo.ts).
    globalSetup: ["test/global-setup.ts"],
    // Each test file boots workerd (about a second) and may restart it.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
