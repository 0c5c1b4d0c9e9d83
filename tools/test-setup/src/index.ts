import { fileURLToPath } from "node:url";
import { defaultServerConditions } from "vite";
import { defineProject, mergeConfig, type UserWorkspaceConfig } from "vitest/config";

/**
 * The export condition under which every workspace package maps each subpath to its TypeScript source
 * (`"@agent-tools/source": "./src/index.ts"` beside `"default": "./dist/index.js"`). TypeScript resolves through it
 * too (`customConditions` in tsconfig.base.json), and so do the Worker bundles of the workerd tests.
 */
export const SOURCE_CONDITION = "@agent-tools/source";

/**
 * The conditions every test resolves imports with: the source condition first, then vitest's own default for tests
 * outside a browser (Vite's server conditions without `module`, whose builds are often not ESM that Node can load).
 * Setting conditions replaces the defaults, hence the repetition. Vitest also starts its workers with these as
 * `--conditions`, so what Node loads itself resolves the same way.
 */
export const TEST_CONDITIONS = [
  SOURCE_CONDITION,
  ...defaultServerConditions.filter((condition) => condition !== "module"),
];

/**
 * Run before each test file: fast-check's seed from `FC_SEED` (`propertySeed` in property-seed.ts; not re-exported
 * here, as Node loads this file itself, for the configs).
 */
const FAST_CHECK_SETUP = fileURLToPath(new URL("./fast-check-setup.ts", import.meta.url));

/** For projects whose tests boot workerd (about a second per boot, and some restart it mid-test). */
export const WORKERD_TIMEOUTS = { testTimeout: 60_000, hookTimeout: 60_000 } as const;

/**
 * A workspace project's vitest configuration: tests named `*.test.ts(x)` under `src/` and `test/`, in Node, and
 * every `@agent-tools/*` import (the project's own name included) resolved to the package's sources, so a test runs
 * the code as it is now, with no build, and every fast-check property with the run's one seed (`propertySeed`:
 * `FC_SEED`, a fixed default). `overrides` is merged on top (vitest's `mergeConfig`: arrays concatenate).
 *
 * @example
 * // packages/chat/vitest.config.ts
 * export default sourceProject("chat");
 */
export function sourceProject(name: string, overrides: UserWorkspaceConfig = {}): UserWorkspaceConfig {
  return defineProject(
    mergeConfig(
      {
        // Vite resolves in two environments, each with its own conditions: `ssr` for tests in Node, `client` for
        // tests in happy-dom (`// @vitest-environment happy-dom`).
        resolve: { conditions: TEST_CONDITIONS },
        ssr: { resolve: { conditions: TEST_CONDITIONS } },
        test: {
          name,
          include: ["src/**/*.test.{ts,tsx}", "test/**/*.test.{ts,tsx}"],
          environment: "node",
          setupFiles: [FAST_CHECK_SETUP],
        },
      } satisfies UserWorkspaceConfig,
      overrides,
    ),
  );
}
