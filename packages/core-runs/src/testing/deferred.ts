/**
 * A promise the test settles: `resolve` (or `reject`) it when the test decides, e.g. to hold a tool or a turn at a
 * point and let it go on later. (What `Promise.withResolvers()` gives, on every runtime this package supports.)
 *
 * @experimental
 */
export function deferred<TValue = void>(): {
  promise: Promise<TValue>;
  resolve: (value: TValue) => void;
  reject: (reason?: unknown) => void;
} {
  let resolve!: (value: TValue) => void;
  let reject!: (reason?: unknown) => void;
  const promise = new Promise<TValue>((settle, fail) => {
    resolve = settle;
    reject = fail;
  });
  return { promise, resolve, reject };
}
