import { createOpenAI } from "@ai-sdk/openai";
import type { LanguageModelV4, LanguageModelV4Prompt } from "@ai-sdk/provider";
import { type ScriptedStep, scriptedModel } from "./scripted-model.js";

/** The environment the demo reads its model settings from. */
export type ModelEnv = {
  OPENAI_API_KEY?: string;
  OPENAI_MODEL?: string;
  DEMO_PACE_MS?: string;
};

/** Milliseconds between streamed words of the scripted model (default 40; 0 in tests). */
export function paceMs(env: ModelEnv): number {
  const value = Number(env.DEMO_PACE_MS ?? "40");
  return Number.isFinite(value) && value >= 0 ? value : 40;
}

/**
 * The model for one agent: a real provider when `OPENAI_API_KEY` is set (model `OPENAI_MODEL`, default
 * gpt-4o-mini), else the agent's deterministic script.
 */
export function selectModel(
  env: ModelEnv,
  role: string,
  script: (prompt: LanguageModelV4Prompt) => ScriptedStep,
): LanguageModelV4 {
  if (env.OPENAI_API_KEY) {
    return createOpenAI({ apiKey: env.OPENAI_API_KEY })(env.OPENAI_MODEL ?? "gpt-4o-mini") as LanguageModelV4;
  }
  return scriptedModel({ modelId: `scripted-${role}`, paceMs: paceMs(env), script });
}
