// @ts-check
// The README example convention (docs/releasing.md), read from a package's README.md:
//
// - `## Install` says first which Node it needs, then has a ```sh block with exactly one line starting `npm i `
//   (and `npm i -D` lines after it): what a consumer runs.
// - The first example is the first fenced block whose info string starts with ts, tsx, js or mjs. Words after the
//   language are attributes: `ts wrangler path=/hello` selects the `wrangler` runner and gives it `path`. Without a
//   runner attribute the example runs in Node (`npx tsx example.<ext>`).
// - A `wrangler` example's wrangler.jsonc is the first ```jsonc block after it, and the install lines name the
//   wrangler to run it with, at an exact version (`npm i -D wrangler@4.164.0`).
// - Its expected output is the first ```text block after it: stdout must equal it, trailing whitespace trimmed.
//
// Also the links of a README: where each one points, so that checks can refuse links that leave the package (or
// the repository).

/** Languages a first example may be written in; the file the consumer test writes is `example.<language>`. */
export const EXAMPLE_LANGUAGES = ["ts", "tsx", "js", "mjs"];

/** Runners an example can ask for with an attribute; `node` is the default. */
export const EXAMPLE_RUNNERS = ["node", "wrangler"];

/**
 * @typedef {object} FencedBlock
 * @property {string} language the info string's first word ("" when there is none)
 * @property {string[]} words the info string's other words
 * @property {string} code the block's content, without the fences and the fence's indentation
 * @property {number} line 1-based line of the opening fence
 * @property {number} endLine 1-based line of the closing fence
 */

/**
 * Every fenced code block (three or more backticks or tildes, at any indentation, as in list items), in order.
 * @param {string} markdown
 * @returns {FencedBlock[]}
 */
export function fencedBlocks(markdown) {
  const lines = markdown.split(/\r?\n/);
  /** @type {FencedBlock[]} */
  const blocks = [];
  for (let index = 0; index < lines.length; index += 1) {
    const opening = /^(\s*)(`{3,}|~{3,})\s*(.*)$/.exec(lines[index] ?? "");
    if (!opening) continue;
    const [, indent = "", fence = "", info = ""] = opening;
    const closing = new RegExp(`^\\s*${fence[0] === "`" ? "`" : "~"}{${fence.length},}\\s*$`);
    const content = [];
    let end = index + 1;
    for (; end < lines.length && !closing.test(lines[end] ?? ""); end += 1) {
      const line = lines[end] ?? "";
      content.push(line.startsWith(indent) ? line.slice(indent.length) : line.trimStart());
    }
    const [language = "", ...words] = info.trim().split(/\s+/).filter(Boolean);
    blocks.push({ language, words, code: content.join("\n"), line: index + 1, endLine: end + 1 });
    index = end;
  }
  return blocks;
}

/**
 * @typedef {object} ReadmeExample
 * @property {string} language ts, tsx, js or mjs
 * @property {string} fileName `example.<language>`
 * @property {string} runner `node` (default) or what the `runner` attribute says (`ts wrangler` is short for
 *   `ts runner=wrangler`)
 * @property {Record<string, string>} attributes the info string's `key=value` words (and `runner`)
 * @property {string} code the example, verbatim
 * @property {number} line where the example starts in the README
 * @property {string | null} config the project's wrangler.jsonc, for the `wrangler` runner (the first `jsonc` block
 *   after the example); `null` otherwise
 * @property {string | null} expectedOutput the first ```text block after the example, trailing whitespace trimmed;
 *   `null` when there is none
 */

/**
 * @typedef {object} ReadmeConvention
 * @property {string | null} installLine the `npm i …` line of `## Install`, then its `npm i -D …` lines, joined by ` && `
 * @property {ReadmeExample | null} example the first example
 * @property {string[]} problems what breaks the convention, as sentences
 */

/**
 * Read the convention's parts from a README; `problems` lists whatever is missing or ambiguous.
 * @param {string} markdown
 * @returns {ReadmeConvention}
 */
export function readReadmeConvention(markdown) {
  /** @type {string[]} */
  const problems = [];
  const blocks = fencedBlocks(markdown);

  const installLine = readInstallLine(markdown, blocks, problems);

  /** @type {ReadmeExample | null} */
  let example = null;
  const exampleIndex = blocks.findIndex((block) => EXAMPLE_LANGUAGES.includes(block.language));
  const block = blocks[exampleIndex];
  if (!block) {
    problems.push(`no example: no code block in ${EXAMPLE_LANGUAGES.join(", ")}`);
  } else {
    /** @type {Record<string, string>} */
    const attributes = {};
    for (const word of block.words) {
      const equals = word.indexOf("=");
      if (equals === -1) attributes["runner"] = word;
      else attributes[word.slice(0, equals)] = word.slice(equals + 1);
    }
    const runner = attributes["runner"] ?? "node";
    if (!EXAMPLE_RUNNERS.includes(runner)) {
      problems.push(`the first example (line ${block.line}) asks for an unknown runner "${runner}"`);
    }
    const output = blocks.slice(exampleIndex + 1).find((candidate) => candidate.language === "text");
    const expectedOutput = output ? output.code.replace(/\s+$/, "") : null;
    if (expectedOutput === null) {
      problems.push(`the first example (line ${block.line}) has no \`\`\`text block after it with its output`);
    } else if (expectedOutput === "") {
      problems.push(`the first example's output block (line ${output?.line}) is empty: an example prints something`);
    }
    const config =
      runner === "wrangler"
        ? (blocks.slice(exampleIndex + 1).find((candidate) => candidate.language === "jsonc")?.code ?? null)
        : null;
    if (runner === "wrangler") problems.push(...wranglerProblems(block.line, config, installLine));
    example = {
      language: block.language,
      fileName: `example.${block.language}`,
      runner,
      attributes,
      code: block.code,
      line: block.line,
      expectedOutput,
      config,
    };
  }
  return { installLine, example, problems };
}

/**
 * What a `wrangler` example lacks: its wrangler.jsonc, and wrangler in the install lines at an exact version (on an
 * older Node than wrangler needs, a bare `npm i -D wrangler` quietly installs an old wrangler instead of failing).
 * @param {number} line
 * @param {string | null} config
 * @param {string | null} installLine
 */
function wranglerProblems(line, config, installLine) {
  const problems = [];
  if (config === null) {
    problems.push(`the wrangler example (line ${line}) has no \`\`\`jsonc block after it (its wrangler.jsonc)`);
  }
  if (installLine !== null && !/(^|\s)wrangler@\d+\.\d+\.\d+(\s|$)/.test(installLine)) {
    problems.push("the wrangler example's install lines do not name wrangler at an exact version (wrangler@x.y.z)");
  }
  return problems;
}

/**
 * @param {string} markdown
 * @param {FencedBlock[]} blocks
 * @param {string[]} problems
 * @returns {string | null}
 */
function readInstallLine(markdown, blocks, problems) {
  const lines = markdown.split(/\r?\n/);
  const heading = lines.findIndex((line) => /^## Install\s*$/.test(line));
  if (heading === -1) {
    problems.push("no `## Install` section");
    return null;
  }
  const next = lines.findIndex((line, index) => index > heading && /^#{1,2} /.test(line));
  const sectionEnd = next === -1 ? lines.length : next; // 0-based index of the next heading
  const shell = blocks.find(
    (block) =>
      block.line - 1 > heading && block.line - 1 < sectionEnd && ["sh", "bash", "shell"].includes(block.language),
  );
  if (!shell) {
    problems.push("`## Install` has no ```sh block");
    return null;
  }
  // What Node the packages need comes first, before the lines a user copies (docs/releasing.md).
  const beforeInstall = lines.slice(heading + 1, shell.line - 1).join("\n");
  if (!/\bNode \d+/.test(beforeInstall)) {
    problems.push("`## Install` does not say first which Node it needs (e.g. Node 22), before its ```sh block");
  }
  const installs = shell.code
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line.startsWith("npm i "));
  // One line installs the packages; `npm i -D …` lines after it (types for TypeScript users, wrangler) may follow.
  const packages = installs.filter((line) => !line.startsWith("npm i -D "));
  if (packages.length !== 1) {
    problems.push(`\`## Install\`'s sh block should have exactly one line starting "npm i ", has ${packages.length}`);
    return null;
  }
  // A comment after a line is for the reader, not the shell line the consumer test runs.
  return installs.map((line) => line.replace(/\s+#.*$/, "")).join(" && ");
}

/**
 * @typedef {object} MarkdownLink
 * @property {string} target as written (a URL, a path, or `#anchor`)
 * @property {number} line 1-based
 */

/**
 * The links and images of a Markdown text, outside code blocks and code spans: inline `[text](target)`,
 * `![alt](target)`, reference definitions `[label]: target`, and `<https://…>` autolinks.
 * @param {string} markdown
 * @returns {MarkdownLink[]}
 */
export function markdownLinks(markdown) {
  const lines = markdown.split(/\r?\n/);
  const inCode = new Set();
  for (const block of fencedBlocks(markdown)) {
    for (let line = block.line; line <= block.endLine; line += 1) inCode.add(line);
  }
  /** @type {MarkdownLink[]} */
  const links = [];
  lines.forEach((text, index) => {
    const line = index + 1;
    if (inCode.has(line)) return;
    const prose = text.replace(/`[^`]*`/g, "");
    for (const match of prose.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      links.push({ target: match[1] ?? "", line });
    }
    const definition = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$/.exec(prose);
    if (definition) links.push({ target: definition[1] ?? "", line });
    for (const match of prose.matchAll(/<(https?:\/\/[^>\s]+)>/g)) links.push({ target: match[1] ?? "", line });
  });
  return links;
}
