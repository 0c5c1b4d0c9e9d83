import type { ModelEnv } from "../model/select-model.js";

/** The demo Worker's bindings. */
export type Env = ModelEnv & {
  ASSISTANT: DurableObjectNamespace;
  RESEARCHER: DurableObjectNamespace;
  SUMMARIZER: DurableObjectNamespace;
  IMPORTER: DurableObjectNamespace;
  DEBUG?: string;
};
