import { sourceProject, WORKERD_TIMEOUTS } from "@agent-tools/test-setup";

export default sourceProject("cloudflare", { test: WORKERD_TIMEOUTS });
