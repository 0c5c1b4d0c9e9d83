import { expect, it, vi } from "vitest";
vi.mock("@agent-tools/core-runs", () => import("./index.js"));
vi.mock("@agent-tools/core-runs/testing", () => import("./testing/index.js"));
it("probe", async () => {
  const specifier = "../examples/quick-start.js";
  const mod = (await import(/* @vite-ignore */ specifier)) as { main(): Promise<unknown> };
  expect(await mod.main()).toEqual(["function", "function"]);
});
