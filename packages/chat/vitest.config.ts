import { defineProject } from "vitest/config";

export default defineProject({
  resolve: { conditions: ["@agent-tools/source"] },
  test: {
    name: "chat",
    include: ["src/**/*.test.ts"],
    environment: "node",
  },
});
