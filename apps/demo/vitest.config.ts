import { sourceProject, WORKERD_TIMEOUTS } from "@agent-tools/test-setup";

export default sourceProject("demo", {
  // wrangler.jsonc, read once and provided to the workerd tests (test/harness/demo.ts).
  test: { ...WORKERD_TIMEOUTS, globalSetup: ["test/global-setup.ts"] },
});
