import { sourceProject } from "@agent-tools/test-setup";

export default sourceProject("anchor-target");
