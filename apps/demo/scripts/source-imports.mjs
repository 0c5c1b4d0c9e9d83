// Import this first (`import "./source-imports.mjs"`), then the modules that use workspace packages with `await
// import(…)`: it lets a demo script run by Node 22 with no build step load `@agent-tools/*` from their TypeScript
// sources, as the tests do. It resolves with the packages' source condition and maps a relative `.js` import of a
// TypeScript source to its `.ts` file; Node strips the types itself.
import { register } from "node:module";
import { isMainThread } from "node:worker_threads";

const SOURCE_CONDITION = "@agent-tools/source";

/** The module resolve hook (it runs on Node's hooks thread). */
export async function resolve(specifier, context, nextResolve) {
  const conditions = context.conditions.includes(SOURCE_CONDITION)
    ? context.conditions
    : [SOURCE_CONDITION, ...context.conditions];
  const withSource = { ...context, conditions };
  try {
    return await nextResolve(specifier, withSource);
  } catch (error) {
    const isSourceSibling =
      error?.code === "ERR_MODULE_NOT_FOUND" &&
      /^\.\.?\//.test(specifier) &&
      specifier.endsWith(".js") &&
      context.parentURL?.endsWith(".ts") === true;
    if (!isSourceSibling) throw error;
    return nextResolve(`${specifier.slice(0, -".js".length)}.ts`, withSource);
  }
}

if (isMainThread) register(import.meta.url);
