import { parsePartialJson } from "ai";
import { type ReactNode, useEffect, useState } from "react";

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A field name as a label: `maxItems` → "Max items". */
function labelOf(key: string): string {
  const words = key.replace(/([a-z])([A-Z])/g, "$1 $2").replace(/[_-]+/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1).toLowerCase();
}

/**
 * A structured value (a child's output) as a person reads it, not as JSON: a `title` as a heading line, lists as
 * bullet lists, other fields as labelled values.
 */
export function StructuredValue({ value }: { value: unknown }): ReactNode {
  if (Array.isArray(value)) {
    return (
      <ul className="struct-list">
        {value.map((item, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a list that only grows at its end
          <li key={index}>{isRecord(item) || Array.isArray(item) ? <StructuredValue value={item} /> : String(item)}</li>
        ))}
      </ul>
    );
  }
  if (!isRecord(value)) return <span>{value === null || value === undefined ? "" : String(value)}</span>;
  const { title, ...rest } = value;
  const fields = Object.entries(rest).filter(([, field]) => field !== undefined);
  return (
    <div className="struct">
      {typeof title === "string" && <p className="struct-title">{title}</p>}
      {fields.map(([key, field]) =>
        Array.isArray(field) && fields.length === 1 ? (
          <StructuredValue key={key} value={field} />
        ) : (
          <div key={key} className="struct-field">
            <span className="struct-label">{labelOf(key)}: </span>
            {isRecord(field) || Array.isArray(field) ? <StructuredValue value={field} /> : String(field)}
          </div>
        ),
      )}
    </div>
  );
}

/** True for text that is a JSON object or array (complete or still streaming). */
export function looksLikeJson(text: string): boolean {
  const start = text.trimStart()[0];
  return start === "{" || start === "[";
}

/**
 * Text a child streams as JSON (structured output), shown formatted as it streams: the partial JSON is repaired and
 * parsed on each change; until it parses, nothing but a placeholder.
 */
export function StructuredText({ text }: { text: string }): ReactNode {
  const [value, setValue] = useState<Json | undefined>(undefined);
  useEffect(() => {
    let current = true;
    parsePartialJson(text).then(
      ({ value: parsed }) => {
        if (current && parsed !== undefined) setValue(parsed as Json);
      },
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [text]);
  return value === undefined ? <p className="muted">Writing…</p> : <StructuredValue value={value} />;
}
