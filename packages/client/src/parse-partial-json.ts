// A synchronous port of the AI SDK's `parsePartialJson` (ai 7, `src/util/parse-partial-json.ts` with
// `fix-json.ts` and provider-utils' `secure-json-parse.ts`, Apache-2.0), so that streamed tool input is assembled
// exactly as `readUIMessageStream` assembles it. The SDK's version is async only because its JSON parse is.

type FixJsonState =
  | "ROOT"
  | "FINISH"
  | "INSIDE_STRING"
  | "INSIDE_STRING_ESCAPE"
  | "INSIDE_STRING_UNICODE_ESCAPE"
  | "INSIDE_LITERAL"
  | "INSIDE_NUMBER"
  | "INSIDE_OBJECT_START"
  | "INSIDE_OBJECT_KEY"
  | "INSIDE_OBJECT_AFTER_KEY"
  | "INSIDE_OBJECT_BEFORE_VALUE"
  | "INSIDE_OBJECT_AFTER_VALUE"
  | "INSIDE_OBJECT_AFTER_COMMA"
  | "INSIDE_ARRAY_START"
  | "INSIDE_ARRAY_AFTER_VALUE"
  | "INSIDE_ARRAY_AFTER_COMMA";

const isHexDigit = (char: string) =>
  (char >= "0" && char <= "9") || (char >= "A" && char <= "F") || (char >= "a" && char <= "f");
const isDigit = (char: string) => char >= "0" && char <= "9";

/** Close a truncated JSON text (open strings, objects, arrays, literals) so that it parses. */
export function fixJson(input: string): string {
  const stack: FixJsonState[] = ["ROOT"];
  let lastValidIndex = -1;
  let literalStart = 0;
  let unicodeEscapeDigits = 0;
  const top = () => stack[stack.length - 1];
  const swap = (next: FixJsonState) => {
    stack.pop();
    stack.push(next);
  };

  function processValueStart(char: string, index: number, swapState: FixJsonState) {
    if (char === '"') {
      lastValidIndex = index;
      swap(swapState);
      stack.push("INSIDE_STRING");
    } else if (char === "f" || char === "t" || char === "n") {
      lastValidIndex = index;
      literalStart = index;
      swap(swapState);
      stack.push("INSIDE_LITERAL");
    } else if (char === "-") {
      swap(swapState);
      stack.push("INSIDE_NUMBER");
    } else if (isDigit(char)) {
      lastValidIndex = index;
      swap(swapState);
      stack.push("INSIDE_NUMBER");
    } else if (char === "{") {
      lastValidIndex = index;
      swap(swapState);
      stack.push("INSIDE_OBJECT_START");
    } else if (char === "[") {
      lastValidIndex = index;
      swap(swapState);
      stack.push("INSIDE_ARRAY_START");
    }
  }
  function processAfterObjectValue(char: string, index: number) {
    if (char === ",") {
      swap("INSIDE_OBJECT_AFTER_COMMA");
    } else if (char === "}") {
      lastValidIndex = index;
      stack.pop();
    }
  }
  function processAfterArrayValue(char: string, index: number) {
    if (char === ",") {
      swap("INSIDE_ARRAY_AFTER_COMMA");
    } else if (char === "]") {
      lastValidIndex = index;
      stack.pop();
    }
  }

  for (let index = 0; index < input.length; index++) {
    const char = input.charAt(index);
    switch (top()) {
      case "ROOT":
        processValueStart(char, index, "FINISH");
        break;
      case "INSIDE_OBJECT_START":
        if (char === '"') swap("INSIDE_OBJECT_KEY");
        else if (char === "}") {
          lastValidIndex = index;
          stack.pop();
        }
        break;
      case "INSIDE_OBJECT_AFTER_COMMA":
        if (char === '"') swap("INSIDE_OBJECT_KEY");
        break;
      case "INSIDE_OBJECT_KEY":
        if (char === '"') swap("INSIDE_OBJECT_AFTER_KEY");
        break;
      case "INSIDE_OBJECT_AFTER_KEY":
        if (char === ":") swap("INSIDE_OBJECT_BEFORE_VALUE");
        break;
      case "INSIDE_OBJECT_BEFORE_VALUE":
        processValueStart(char, index, "INSIDE_OBJECT_AFTER_VALUE");
        break;
      case "INSIDE_OBJECT_AFTER_VALUE":
        processAfterObjectValue(char, index);
        break;
      case "INSIDE_STRING":
        if (char === '"') {
          stack.pop();
          lastValidIndex = index;
        } else if (char === "\\") {
          stack.push("INSIDE_STRING_ESCAPE");
        } else {
          lastValidIndex = index;
        }
        break;
      case "INSIDE_ARRAY_START":
        if (char === "]") {
          lastValidIndex = index;
          stack.pop();
        } else {
          processValueStart(char, index, "INSIDE_ARRAY_AFTER_VALUE");
        }
        break;
      case "INSIDE_ARRAY_AFTER_VALUE":
        if (char === ",") swap("INSIDE_ARRAY_AFTER_COMMA");
        else if (char === "]") {
          lastValidIndex = index;
          stack.pop();
        } else {
          lastValidIndex = index;
        }
        break;
      case "INSIDE_ARRAY_AFTER_COMMA":
        processValueStart(char, index, "INSIDE_ARRAY_AFTER_VALUE");
        break;
      case "INSIDE_STRING_ESCAPE":
        stack.pop();
        if (char === "u") {
          unicodeEscapeDigits = 0;
          stack.push("INSIDE_STRING_UNICODE_ESCAPE");
        } else {
          lastValidIndex = index;
        }
        break;
      case "INSIDE_STRING_UNICODE_ESCAPE":
        if (isHexDigit(char)) {
          unicodeEscapeDigits++;
          if (unicodeEscapeDigits === 4) {
            stack.pop();
            lastValidIndex = index;
          }
        }
        break;
      case "INSIDE_NUMBER":
        if (isDigit(char)) {
          lastValidIndex = index;
        } else if (char === "e" || char === "E" || char === "-" || char === ".") {
          // part of the number, not yet valid on its own
        } else if (char === ",") {
          stack.pop();
          if (top() === "INSIDE_ARRAY_AFTER_VALUE") processAfterArrayValue(char, index);
          if (top() === "INSIDE_OBJECT_AFTER_VALUE") processAfterObjectValue(char, index);
        } else if (char === "}") {
          stack.pop();
          if (top() === "INSIDE_OBJECT_AFTER_VALUE") processAfterObjectValue(char, index);
        } else if (char === "]") {
          stack.pop();
          if (top() === "INSIDE_ARRAY_AFTER_VALUE") processAfterArrayValue(char, index);
        } else {
          stack.pop();
        }
        break;
      case "INSIDE_LITERAL": {
        const partialLiteral = input.substring(literalStart, index + 1);
        if (
          !"false".startsWith(partialLiteral) &&
          !"true".startsWith(partialLiteral) &&
          !"null".startsWith(partialLiteral)
        ) {
          stack.pop();
          if (top() === "INSIDE_OBJECT_AFTER_VALUE") processAfterObjectValue(char, index);
          else if (top() === "INSIDE_ARRAY_AFTER_VALUE") processAfterArrayValue(char, index);
        } else {
          lastValidIndex = index;
        }
        break;
      }
      default:
        break;
    }
  }

  let result = input.slice(0, lastValidIndex + 1);
  for (let index = stack.length - 1; index >= 0; index--) {
    switch (stack[index]) {
      case "INSIDE_STRING":
        result += '"';
        break;
      case "INSIDE_OBJECT_KEY":
      case "INSIDE_OBJECT_AFTER_KEY":
      case "INSIDE_OBJECT_AFTER_COMMA":
      case "INSIDE_OBJECT_START":
      case "INSIDE_OBJECT_BEFORE_VALUE":
      case "INSIDE_OBJECT_AFTER_VALUE":
        result += "}";
        break;
      case "INSIDE_ARRAY_START":
      case "INSIDE_ARRAY_AFTER_COMMA":
      case "INSIDE_ARRAY_AFTER_VALUE":
        result += "]";
        break;
      case "INSIDE_LITERAL": {
        const partialLiteral = input.substring(literalStart, input.length);
        if ("true".startsWith(partialLiteral)) result += "true".slice(partialLiteral.length);
        else if ("false".startsWith(partialLiteral)) result += "false".slice(partialLiteral.length);
        else if ("null".startsWith(partialLiteral)) result += "null".slice(partialLiteral.length);
        break;
      }
      default:
        break;
    }
  }
  return result;
}

const suspectProto =
  /"(?:_|\\u005[Ff])(?:_|\\u005[Ff])(?:p|\\u0070)(?:r|\\u0072)(?:o|\\u006[Ff])(?:t|\\u0074)(?:o|\\u006[Ff])(?:_|\\u005[Ff])(?:_|\\u005[Ff])"\s*:/;
const suspectConstructor =
  /"(?:c|\\u0063)(?:o|\\u006[Ff])(?:n|\\u006[Ee])(?:s|\\u0073)(?:t|\\u0074)(?:r|\\u0072)(?:u|\\u0075)(?:c|\\u0063)(?:t|\\u0074)(?:o|\\u006[Ff])(?:r|\\u0072)"\s*:/;

const hasOwn = (value: object, key: string) => Object.hasOwn(value, key);

/** True when a parsed value carries a prototype-poisoning key (the SDK refuses such input). */
function isPoisoned(root: object): boolean {
  let next: object[] = [root];
  while (next.length > 0) {
    const nodes = next;
    next = [];
    for (const node of nodes) {
      if (hasOwn(node, "__proto__")) return true;
      const ctor = (node as { constructor?: unknown }).constructor;
      if (hasOwn(node, "constructor") && ctor !== null && typeof ctor === "object" && hasOwn(ctor, "prototype")) {
        return true;
      }
      for (const key in node) {
        const value = (node as Record<string, unknown>)[key];
        if (value && typeof value === "object") next.push(value);
      }
    }
  }
  return false;
}

type SecureParseResult = { ok: true; value: unknown } | { ok: false };

function secureJsonParse(text: string): SecureParseResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false };
  }
  if (value === null || typeof value !== "object") return { ok: true, value };
  if (!suspectProto.test(text) && !suspectConstructor.test(text)) return { ok: true, value };
  return isPoisoned(value) ? { ok: false } : { ok: true, value };
}

/**
 * The value a (possibly truncated) JSON text stands for so far, as the AI SDK reads streamed tool input:
 * the text itself if it parses, else the text closed by {@link fixJson}, else `undefined`. Never throws.
 */
export function parsePartialJson(text: string): unknown {
  const whole = secureJsonParse(text);
  if (whole.ok) return whole.value;
  const repaired = secureJsonParse(fixJson(text));
  return repaired.ok ? repaired.value : undefined;
}
