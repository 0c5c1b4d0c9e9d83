import { describe, expect, it } from "vitest";

// The toolchain runs on Node 22 from node_modules/.bin (docs/decisions/2026-12-03-node-22.md), vitest's workers
// included. Printed, so that CI output shows the version the tests ran on.

describe("the Node the tests run on", () => {
  it("is Node 22 or later, in vitest's workers too", () => {
    console.log(`vitest worker: node ${process.version} (${process.execPath})`);
    expect(Number(process.versions.node.split(".")[0])).toBeGreaterThanOrEqual(22);
  });
});
