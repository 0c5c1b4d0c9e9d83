import { describe, expect, it } from "vitest";
import { entryExports, namesImportedFrom, namesNoUserWrites, namesWord, readUserTexts } from "../src/public-roots.mjs";
import { publishedPackages } from "../src/workspace.mjs";

const packages = await publishedPackages();
const roots = entryExports(packages, "src/index.ts");
const withInternal = packages.filter((workspacePackage) => workspacePackage.manifest.exports?.["./internal"]);
const internals = entryExports(withInternal, "src/internal.ts");
const texts = await readUserTexts(packages);

describe("each package root exports what a user of the package writes (issue 37)", () => {
  for (const workspacePackage of packages) {
    it(`${workspacePackage.name}: every name of its root is in a README, an example, apps/demo or the spec`, () => {
      const exported = roots.get(workspacePackage.name) ?? [];
      expect(exported.length).toBeGreaterThan(0);
      expect(namesNoUserWrites(workspacePackage.name, exported, texts)).toEqual([]);
    });
  }

  for (const workspacePackage of withInternal) {
    it(`${workspacePackage.name}/internal: none of its names is also at the root`, () => {
      const root = new Set(roots.get(workspacePackage.name));
      const internal = internals.get(workspacePackage.name) ?? [];
      expect(internal.length).toBeGreaterThan(0);
      expect(internal.filter((name) => root.has(name))).toEqual([]);
    });
  }
});

describe("the measure", () => {
  it("lists a root's values and types from the compiler, and not what moved to ./internal", () => {
    const coreRuns = roots.get("@agent-tools/core-runs") ?? [];
    expect(coreRuns).toContain("agentTool"); // a value
    expect(coreRuns).toContain("RunStore"); // a type
    expect(coreRuns).not.toContain("decideQueueAdmission");
    expect(internals.get("@agent-tools/chat")).toContain("decideQueueAdmission");
  });

  it("counts an import from the package, its own README and the spec; nothing else", () => {
    const userTexts = {
      examples:
        'import { imported, type ImportedType, renamed as alias } from "@agent-tools/x";\n' +
        'import { elsewhere } from "@agent-tools/y";\n',
      spec: "the spec names `inSpec`.",
      readme: (name: string) => (name === "@agent-tools/x" ? "| `inReadme()` | … |" : "`otherReadme`"),
    };
    const exported = ["imported", "ImportedType", "renamed", "inSpec", "inReadme", "elsewhere", "otherReadme", "alias"];
    expect(namesNoUserWrites("@agent-tools/x", exported, userTexts)).toEqual(["elsewhere", "otherReadme", "alias"]);
  });

  it("reads imports and words exactly", () => {
    expect([...namesImportedFrom('import type { A, B as C } from "p";\nimport { D } from "p/sub";', "p")]).toEqual([
      "A",
      "B",
    ]);
    expect(namesWord("see `runTurnX` and $name", "runTurn")).toBe(false);
    expect(namesWord("see `runTurn`", "runTurn")).toBe(true);
  });
});
