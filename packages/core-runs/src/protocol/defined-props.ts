/**
 * The fields of `fields` whose value is not `undefined`, as optional properties: spread it where an object takes
 * optional fields (`{ ...definedProps({ summary, output }) }`), in place of `...(summary !== undefined ? { summary } :
 * {})` for each. Under `exactOptionalPropertyTypes` an optional property may be absent but not `undefined`.
 * @experimental
 */
export function definedProps<T extends object>(fields: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  // Object.fromEntries defines own properties: a key such as "__proto__" stays an ordinary key.
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}
