import path from "node:path";
import { describe, expect, it } from "vitest";
import { declarationCheckArguments, ownErrors } from "../src/declarations.mjs";

// The declarations check itself runs in `pnpm typecheck` (it needs the built dist/): these are its pure parts.

describe("the published declarations check", () => {
  const directory = path.join(path.sep, "repo", "packages", "chat");

  it("keeps the errors in our packages' declarations, with their continuation lines, and drops third parties'", () => {
    const output = [
      "../../node_modules/.pnpm/ai@7.0.173/node_modules/ai/dist/index.d.ts(6,32): error TS2591: Cannot find name 'node:http'.",
      "dist/index.d.ts(17,10): error TS2305: Module '\"./request-budget.js\"' has no exported member 'RequestBudget'.",
      "../../node_modules/.pnpm/@ai-sdk+provider@4.0.38/node_modules/@ai-sdk/provider/dist/index.d.ts(1,82): error TS7016: Could not find a declaration file for module 'json-schema'.",
      "  Try `npm i --save-dev @types/json-schema`",
      "../core-runs/dist/child-tail.d.ts(1,15): error TS2305: Module '\"./live-run.js\"' has no exported member 'LiveRun'.",
      "  The file is in the program because:",
      "error TS2688: Cannot find type definition file for '@cloudflare/workers-types'.",
    ].join("\n");
    expect(ownErrors(output, directory)).toEqual([
      "dist/index.d.ts(17,10): error TS2305: Module '\"./request-budget.js\"' has no exported member 'RequestBudget'.",
      "../core-runs/dist/child-tail.d.ts(1,15): error TS2305: Module '\"./live-run.js\"' has no exported member 'LiveRun'.",
      "  The file is in the program because:",
      "error TS2688: Cannot find type definition file for '@cloudflare/workers-types'.",
    ]);
  });

  it("checks as a strict consumer does: skipLibCheck false, nodenext, the package's lib, types and jsx", () => {
    const args = declarationCheckArguments(
      { lib: ["ES2022", "WebWorker"], types: ["@cloudflare/workers-types"], jsx: "react-jsx" },
      ["a.d.ts"],
    );
    expect(args.join(" ")).toBe(
      "--ignoreConfig --noEmit --strict --skipLibCheck false --target es2022 --module nodenext --moduleResolution " +
        "nodenext --lib es2022,webworker --types @cloudflare/workers-types --jsx react-jsx a.d.ts",
    );
  });
});
