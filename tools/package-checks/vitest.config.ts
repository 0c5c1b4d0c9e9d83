import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "package-checks",
    include: ["test/**/*.test.ts"],
    environment: "node",
  },
});
