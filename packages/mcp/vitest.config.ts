import { defineProject } from "vitest/config";

export default defineProject({
  resolve: { conditions: ["@agent-tools/source"] },
  test: {
    name: "mcp",
    include: ["src/**/*.test.ts"],
    environment: "node",
  },
});
