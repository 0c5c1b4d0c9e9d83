import { sourceProject, WORKERD_TIMEOUTS } from "@agent-tools/test-setup";

export default sourceProject("workerd-harness", { test: WORKERD_TIMEOUTS });
