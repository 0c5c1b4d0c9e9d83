/**
 * A README's example, as its test reads it: the first fenced code block in one of `languages` (in the section
 * `section`, when given), and the first ```text block after it (what running it prints).
 *
 * @experimental
 */
export type ReadmeExample = {
  /** The block's info string: `ts`, `tsx`… */
  language: string;
  /** The block's code, trimmed. */
  code: string;
  /** The ```text block after it, without its trailing blank (`null` when there is none). */
  output: string | null;
};

/** Where a README example is and how to run it. @experimental */
export type ReadmeExampleOptions = {
  /** The README (e.g. `new URL("../README.md", import.meta.url)`). */
  readme: URL;
  /** The info strings an example's block may have (default `["ts", "tsx", "js", "mjs"]`). */
  languages?: readonly string[];
  /** Only look after the heading line that is exactly this (e.g. `"## Testing"`), up to the next heading as deep. */
  section?: string;
  /**
   * The module that holds the example (e.g. `examples/readme.ts`), which running it imports; read as `source`, or
   * its part between `// #region <region>` and `// #endregion <region>` when `region` is given.
   */
  module?: URL;
  region?: string;
  /**
   * Without `module`: the folder the block is saved in (as `example.<language>`) and imported from; default
   * `dist/readme-example/` beside the README (inside the package, so that it resolves by its own name; dist/ is not
   * committed).
   */
  saveIn?: URL;
};

/** A README's example as read from the files. @experimental */
export type ReadmeExampleRead = ReadmeExample & {
  /** The whole README. */
  markdown: string;
  /** The module's code (or its region), trimmed; `null` without `module`. */
  source: string | null;
};

/** What a README test compares: the example, the code that holds it, and what running it printed. @experimental */
export type ReadmeExampleRun = ReadmeExampleRead & {
  /** What running it printed with `console.log`, one line per call (the README's ```text block, if it is true). */
  printed: string;
};

// Specifier in a variable: this module loads in any runtime (workerd, a browser); only a README test, in Node,
// reaches the file system.
const NODE_FS = "node:fs/promises";

type Fs = {
  readFile(path: URL, encoding: "utf8"): Promise<string>;
  writeFile(path: URL, text: string): Promise<void>;
  mkdir(path: URL, options: { recursive: true }): Promise<unknown>;
};

async function nodeFs(): Promise<Fs> {
  return (await import(/* @vite-ignore */ NODE_FS)) as Fs;
}

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The text of `markdown` under the heading `heading`, up to the next heading of the same depth or above. */
function sectionOf(markdown: string, heading: string): string {
  const start = new RegExp(`^${escaped(heading)}$`, "m").exec(markdown);
  if (!start) throw new Error(`the README has no "${heading}" heading`);
  const depth = /^#+/.exec(heading)?.[0].length ?? 1;
  const rest = markdown.slice(start.index + start[0].length);
  const next = new RegExp(`^#{1,${depth}} `, "m").exec(rest);
  return next ? rest.slice(0, next.index) : rest;
}

/**
 * The first example of `markdown` (its first block in one of `languages`, in `section` if given) and its output.
 *
 * @experimental
 */
export function readmeExample(
  markdown: string,
  options: Pick<ReadmeExampleOptions, "languages" | "section"> = {},
): ReadmeExample {
  const text = options.section ? sectionOf(markdown, options.section) : markdown;
  const languages = options.languages ?? ["ts", "tsx", "js", "mjs"];
  const block = new RegExp(`^\`\`\`(${languages.map(escaped).join("|")})\\n([\\s\\S]*?)^\`\`\`$`, "m").exec(text);
  if (!block?.[1] || block[2] === undefined) {
    throw new Error(
      `the README has no ${languages.join("/")} code block${options.section ? ` in ${options.section}` : ""}`,
    );
  }
  const output = /^```text\n([\s\S]*?)^```$/m.exec(text.slice(block.index + block[0].length));
  return { language: block[1], code: block[2].trim(), output: output?.[1]?.trimEnd() ?? null };
}

/** The part of `source` between `// #region <name>` and `// #endregion <name>`, trimmed. */
function regionOf(source: string, name: string): string {
  const match = new RegExp(`^// #region ${escaped(name)}\\n([\\s\\S]*?)^// #endregion ${escaped(name)}$`, "m").exec(
    source,
  );
  if (!match?.[1]) throw new Error(`no "${name}" region`);
  return match[1].trim();
}

/**
 * What `run` prints with `console.log` while it runs, one line per call (its values joined by spaces); the console
 * prints nothing meanwhile, and is itself again after.
 *
 * @experimental
 */
export async function printedBy(run: () => unknown): Promise<string> {
  const printed: string[] = [];
  // The console as the example sees it (what it prints is what the README says it prints).
  const { console: target } = globalThis;
  const log = target.log;
  target.log = (...values: unknown[]) => {
    printed.push(values.map(String).join(" "));
  };
  try {
    await run();
  } finally {
    target.log = log;
  }
  return printed.join("\n");
}

/**
 * Read a README's example without running it: the block, its output, and the module's code that should be it
 * (Node only).
 *
 * @experimental
 */
export async function readReadmeExample(options: ReadmeExampleOptions): Promise<ReadmeExampleRead> {
  const fs = await nodeFs();
  const markdown = await fs.readFile(options.readme, "utf8");
  const example = { ...readmeExample(markdown, options), markdown };
  if (!options.module) return { ...example, source: null };
  const module = await fs.readFile(options.module, "utf8");
  return { ...example, source: options.region ? regionOf(module, options.region) : module.trim() };
}

/**
 * Run a README's example as a user would, and say what it printed (Node only): its module is imported (or the block,
 * saved to `saveIn`, is), with `console.log` captured. A module runs once per test file: import it in one test.
 *
 * @example
 * const run = await runReadmeExample({
 *   readme: new URL("../README.md", import.meta.url),
 *   module: new URL("../examples/readme.ts", import.meta.url),
 * });
 * expect(run.code).toBe(run.source);
 * expect(run.printed).toBe(run.output);
 *
 * @experimental
 */
export async function runReadmeExample(options: ReadmeExampleOptions): Promise<ReadmeExampleRun> {
  const read = await readReadmeExample(options);
  let target = options.module;
  if (!target) {
    const folder = options.saveIn ?? new URL("dist/readme-example/", options.readme);
    const fs = await nodeFs();
    await fs.mkdir(folder, { recursive: true });
    target = new URL(`example.${read.language}`, folder);
    await fs.writeFile(target, read.code);
  }
  const href = target.href;
  const printed = await printedBy(() => import(/* @vite-ignore */ href));
  return { ...read, printed };
}
