/**
 * A JSON value: what a run's free fields (`display`'s extra keys, progress and milestone `data`) hold. They are
 * stored and sent as JSON, so typing them as JSON (not `unknown`) says what survives, and lets them cross Durable
 * Object RPC typed (`Rpc.Serializable` refuses `unknown`). The object and array are interfaces, so that recursive
 * type mappings (RPC stubs) defer instead of expanding without end.
 */
export type JsonValue = JsonPrimitive | JsonObject | JsonArray;

/** A JSON scalar. */
export type JsonPrimitive = null | string | number | boolean;

/** A JSON object (`undefined` values are left out when it is written). */
export interface JsonObject {
  [key: string]: JsonValue | undefined;
}

/** A JSON array. */
export interface JsonArray extends Array<JsonValue> {}
