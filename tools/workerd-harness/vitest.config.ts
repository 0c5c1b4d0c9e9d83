import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "workerd-harness",
    include: ["test/**/*.test.ts"],
    environment: "node",
    // Each test boots workerd (about a second).
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
