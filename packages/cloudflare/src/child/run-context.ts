/** Which run the code running now works for: a store that follows the async work started inside `run`. */
export type RunContext<TStore> = {
  getStore(): TStore | undefined;
  run<TResult>(store: TStore, callback: () => TResult): TResult;
};

type BuiltinModuleLoader = { getBuiltinModule?: (id: string) => unknown };
type AsyncHooksModule = { AsyncLocalStorage?: new () => RunContext<unknown> };

/**
 * A `RunContext` over `node:async_hooks`' `AsyncLocalStorage`, which workerd has under the `nodejs_compat` (or
 * `nodejs_als`) compatibility flag, found through `process.getBuiltinModule` (no static `node:` import, so the package
 * loads without the flag). `undefined` where the runtime has none.
 */
export function createRunContext<TStore>(): RunContext<TStore> | undefined {
  const process = (globalThis as { process?: BuiltinModuleLoader }).process;
  let loaded: AsyncHooksModule | undefined;
  try {
    loaded = process?.getBuiltinModule?.("node:async_hooks") as AsyncHooksModule | undefined;
  } catch {
    return undefined;
  }
  const AsyncLocalStorage = loaded?.AsyncLocalStorage;
  return typeof AsyncLocalStorage === "function" ? (new AsyncLocalStorage() as RunContext<TStore>) : undefined;
}
