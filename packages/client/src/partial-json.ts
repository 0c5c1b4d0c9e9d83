/** Nothing readable yet: the text ends before a value starts (or inside a lone `-`). */
const NOTHING = Symbol("nothing");

/** A value read so far; `isClosed` is false when the text ended inside it. */
type Read = { value: unknown; isClosed: boolean };

/** The text is not the start of a JSON text, or holds a key JSON parsing refuses here. */
class Unreadable extends Error {}

const SPACE = new Set([" ", "\t", "\n", "\r"]);
const ESCAPED: Readonly<Record<string, string>> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
};
const LITERALS: Readonly<Record<string, { word: string; value: unknown }>> = {
  t: { word: "true", value: true },
  f: { word: "false", value: false },
  n: { word: "null", value: null },
};
const isDigit = (char: string | undefined) => char !== undefined && char >= "0" && char <= "9";

/**
 * The value the start of a JSON text holds so far, synchronously: what a streamed tool input shows while its
 * `tool-input-delta`s arrive. It reads what the AI SDK's (asynchronous) `parsePartialJson` reads of every prefix of a
 * JSON text, which the tests check: an object lists the members whose value has begun; a string ends where the text
 * does (without a cut escape); a number is its longest valid start (`-` alone is nothing yet, `1.` is 1); `t`, `f`, `n`
 * are already `true`, `false`, `null`; an array lists the elements begun. `undefined` when nothing is readable yet,
 * when the text is not the start of a JSON text, or when an object has a `__proto__` member or a `constructor` member
 * with a `prototype` (as the SDK's secure parse refuses them). Never throws.
 *
 * Where the SDK's repair of the text reads less than the text holds, this reads what it holds: a number cut in an
 * exponent with a `+` inside an object (`{"a":1e+5`: the SDK reads 1, this 100000, as both do in an array), and a key
 * with an escaped quote followed by `:` (`{"\":"`: the SDK reads nothing, this `{}`).
 */
export function readPartialJson(text: string): unknown {
  const reader = new PartialJsonReader(text);
  try {
    const read = reader.value();
    if (read === NOTHING) return undefined;
    if (read.isClosed && !reader.isAtEndAfterSpace()) return undefined;
    return read.value;
  } catch (error) {
    if (error instanceof Unreadable) return undefined;
    throw error;
  }
}

/** A recursive-descent reader over a JSON text that may end anywhere. */
class PartialJsonReader {
  readonly #text: string;
  #position = 0;

  constructor(text: string) {
    this.#text = text;
  }

  isAtEndAfterSpace(): boolean {
    this.#skipSpace();
    return this.#isAtEnd();
  }

  value(): Read | typeof NOTHING {
    this.#skipSpace();
    const char = this.#peek();
    if (char === undefined) return NOTHING;
    if (char === "{") return this.#object();
    if (char === "[") return this.#array();
    if (char === '"') return this.#string();
    if (char === "-" || isDigit(char)) return this.#number();
    const literal = LITERALS[char];
    if (literal) return this.#literal(literal.word, literal.value);
    throw new Unreadable();
  }

  #object(): Read {
    const object: Record<string, unknown> = {};
    const opened = this.#open(object, "}");
    if (opened) return opened;
    const open = { value: object, isClosed: false };
    for (;;) {
      if (this.#peek() !== '"') throw new Unreadable();
      const key = this.#string();
      if (!key.isClosed) return open;
      this.#skipSpace();
      if (this.#isAtEnd()) return open;
      if (this.#peek() !== ":") throw new Unreadable();
      this.#position += 1;
      const member = this.value();
      if (member === NOTHING) return open;
      addMember(object, key.value as string, member.value);
      if (!member.isClosed) return open;
      const after = this.#afterItem("}");
      if (after !== "next") return { value: object, isClosed: after === "closed" };
      this.#skipSpace();
      if (this.#isAtEnd()) return open;
    }
  }

  #array(): Read {
    const array: unknown[] = [];
    const opened = this.#open(array, "]");
    if (opened) return opened;
    for (;;) {
      const element = this.value();
      if (element === NOTHING) return { value: array, isClosed: false };
      array.push(element.value);
      if (!element.isClosed) return { value: array, isClosed: false };
      const after = this.#afterItem("]");
      if (after !== "next") return { value: array, isClosed: after === "closed" };
    }
  }

  /** Past an opening bracket: the container if the text ends or it closes at once (`{}`, `[]`); `null` otherwise. */
  #open(container: unknown, close: string): Read | null {
    this.#position += 1;
    this.#skipSpace();
    if (this.#isAtEnd()) return { value: container, isClosed: false };
    if (this.#peek() !== close) return null;
    this.#position += 1;
    return { value: container, isClosed: true };
  }

  /** After a member or an element: the text ends (`open`), the container closes, or a `,` leads to the next one. */
  #afterItem(close: string): "open" | "closed" | "next" {
    this.#skipSpace();
    const next = this.#peek();
    if (next === undefined) return "open";
    this.#position += 1;
    if (next === close) return "closed";
    if (next !== ",") throw new Unreadable();
    return "next";
  }

  #string(): Read {
    this.#position += 1;
    let value = "";
    for (;;) {
      const char = this.#peek();
      if (char === undefined) return { value, isClosed: false };
      this.#position += 1;
      if (char === '"') return { value, isClosed: true };
      if (char < " ") throw new Unreadable();
      if (char !== "\\") {
        value += char;
        continue;
      }
      const escaped = this.#peek();
      if (escaped === undefined) return { value, isClosed: false };
      this.#position += 1;
      if (escaped === "u") {
        const hex = this.#text.slice(this.#position, this.#position + 4);
        if (!/^[0-9a-fA-F]*$/.test(hex)) throw new Unreadable();
        if (hex.length < 4) return { value, isClosed: false };
        this.#position += 4;
        value += String.fromCharCode(Number.parseInt(hex, 16));
        continue;
      }
      const unescaped = ESCAPED[escaped];
      if (unescaped === undefined) throw new Unreadable();
      value += unescaped;
    }
  }

  /** The longest valid start of a number: `-`, then `0` or digits, then `.digits`, then `e`, a sign and digits. */
  #number(): Read | typeof NOTHING {
    const start = this.#position;
    if (this.#peek() === "-") this.#position += 1;
    if (this.#peek() === "0") this.#position += 1;
    else this.#skipDigits();
    if (this.#position === start || this.#text[this.#position - 1] === "-") {
      if (this.#isAtEnd()) return NOTHING;
      throw new Unreadable();
    }
    let end = this.#position;
    if (this.#peek() === ".") {
      this.#position += 1;
      if (this.#skipDigits() > 0) end = this.#position;
      else if (!this.#isAtEnd()) throw new Unreadable();
    }
    if (this.#isAtEnd()) return this.#numberRead(start, end);
    if (this.#peek() === "e" || this.#peek() === "E") {
      this.#position += 1;
      if (this.#peek() === "+" || this.#peek() === "-") this.#position += 1;
      if (this.#skipDigits() > 0) end = this.#position;
      else if (!this.#isAtEnd()) throw new Unreadable();
    }
    return this.#numberRead(start, end);
  }

  #numberRead(start: number, end: number): Read {
    return { value: Number(this.#text.slice(start, end)), isClosed: !this.#isAtEnd() };
  }

  #literal(word: string, value: unknown): Read {
    for (const expected of word) {
      const char = this.#peek();
      if (char === undefined) return { value, isClosed: false };
      if (char !== expected) throw new Unreadable();
      this.#position += 1;
    }
    return { value, isClosed: true };
  }

  #skipDigits(): number {
    const start = this.#position;
    while (isDigit(this.#peek())) this.#position += 1;
    return this.#position - start;
  }

  #skipSpace(): void {
    while (SPACE.has(this.#peek() ?? "")) this.#position += 1;
  }

  #peek(): string | undefined {
    return this.#text[this.#position];
  }

  #isAtEnd(): boolean {
    return this.#position >= this.#text.length;
  }
}

/** Add a member whose value has begun, refusing what a secure JSON parse refuses (no prototype is ever set). */
function addMember(object: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") throw new Unreadable();
  if (key === "constructor" && typeof value === "object" && value !== null && Object.hasOwn(value, "prototype")) {
    throw new Unreadable();
  }
  object[key] = value;
}
