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

let shared: RunContext<unknown> | null | undefined;

/**
 * One `RunContext` for every object of the isolate (made on first use; `undefined` where the runtime has none). An
 * `AsyncLocalStorage` is a native object of a few hundred bytes: a child object is made per run and kept in memory a
 * while after it, so each object's own would cost a fan-out's thousand children that much each. A store read from it
 * may be another object's (code of one object running inside another's scope): tell yours by what the store holds.
 */
export function sharedRunContext<TStore>(): RunContext<TStore> | undefined {
  if (shared === undefined) shared = createRunContext<unknown>() ?? null;
  return (shared ?? undefined) as RunContext<TStore> | undefined;
}
