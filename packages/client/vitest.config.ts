import { defineProject } from "vitest/config";

// Workspace packages (this one included, by its own name) resolve to their TypeScript sources. Tests run in vite's
// server (SSR) environment, whose conditions are separate from `resolve.conditions`; setting them replaces vite's
// defaults, so these repeat them.
const SOURCE_CONDITIONS = ["@agent-tools/source", "module", "node", "development|production"];

export default defineProject({
  resolve: { conditions: ["@agent-tools/source"] },
  ssr: { resolve: { conditions: SOURCE_CONDITIONS } },
  test: {
    name: "client",
    include: ["src/**/*.test.ts"],
    environment: "node",
  },
});
