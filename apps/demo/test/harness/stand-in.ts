/**
 * An object that stands for the one `current()` returns when it is used: a suite's set-up makes its host, browser
 * or folder in `beforeAll`, while the suite's body names them before that (`const { host } = demoHostSuite()`).
 * Every property read goes to the current object (a method bound to it), so the stand-in can be used as the object
 * itself from the suite's hooks and tests on; `current()` says clearly when there is none yet.
 */
export function standIn<T extends object>(current: () => T): T {
  return new Proxy({} as T, {
    get(_target, property) {
      const target = current();
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
    has: (_target, property) => Reflect.has(current(), property),
    set(_target, property, value) {
      return Reflect.set(current(), property, value);
    },
  });
}
