// The lint rules that guard the architecture (docs/architecture.md, "Rules of the graph"), each shown to report what
// it forbids and to let the rest through. The repository's Biome configuration (biome.json, tools/lint/*.jsonc,
// packages/*/biome.jsonc and the plugin) is copied into a scratch folder, probe files are written where a package's
// own files would be, and one `biome lint` reports on all of them.
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const BIOME = fileURLToPath(new URL("../node_modules/.bin/biome", import.meta.url));
const run = promisify(execFile);

type Manifest = { name: string; private?: boolean; exports?: Record<string, unknown> };

const PACKAGES = readdirSync(path.join(ROOT, "packages"), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => ({
    folder: entry.name,
    manifest: JSON.parse(readFileSync(path.join(ROOT, "packages", entry.name, "package.json"), "utf8")) as Manifest,
  }))
  .filter(({ manifest }) => manifest.private !== true);

/** Every specifier a workspace package can be imported by: its name and each subpath it exports. */
const SPECIFIERS = PACKAGES.flatMap(({ manifest }) =>
  Object.keys(manifest.exports ?? {})
    .filter((subpath) => subpath !== "./package.json")
    .map((subpath) => `${manifest.name}${subpath.slice(1)}`),
);

const within =
  (...folders: string[]) =>
  (specifier: string) =>
    folders.some((folder) => specifier === `@agent-tools/${folder}` || specifier.startsWith(`@agent-tools/${folder}/`));

/** The packages that run anywhere: nothing from Node or Workers, nothing from React. */
const HOST_FREE = ["core-runs", "chat", "detached", "progress", "recovery", "observability", "mcp", "ag-ui", "client"];

/** What each package's shipped code (src/, tests aside) may import of the workspace. */
const SHIPPED: Record<string, (specifier: string) => boolean> = {
  "core-runs": within("core-runs"),
  chat: within("core-runs"),
  detached: within("core-runs"),
  progress: within("core-runs"),
  recovery: within("core-runs"),
  observability: within("core-runs"),
  mcp: within("core-runs"),
  "ag-ui": (specifier) => specifier === "@agent-tools/core-runs/protocol",
  client: (specifier) => specifier === "@agent-tools/core-runs/protocol",
  react: (specifier) => specifier === "@agent-tools/client" || specifier === "@agent-tools/client/internal",
  cloudflare: (specifier) => !within("client", "react", "observability")(specifier),
};

/** What each package's tests may import of the workspace: host-free packages' tests keep to core-runs. */
const IN_TESTS: Record<string, (specifier: string) => boolean> = Object.fromEntries(
  PACKAGES.map(({ folder }) => [folder, HOST_FREE.includes(folder) ? within("core-runs") : () => true]),
);

type Expected = { line: number; rule: string; message?: string };
/** A file written where a package's own file would be, and what Biome must report on it; probes come in groups. */
type Probe = { group: string; file: string; code: string; expected: Expected[] };

const RESTRICTED_IMPORT = "lint/style/noRestrictedImports";
const RESTRICTED_GLOBAL = "lint/style/noRestrictedGlobals";
const NODE_MODULE = "lint/correctness/noNodejsModules";

function graphProbes(): Probe[] {
  return PACKAGES.flatMap(({ folder }) =>
    SPECIFIERS.flatMap((specifier, index) =>
      [
        {
          group: "shipped code",
          file: `packages/${folder}/src/graph-${index}.ts`,
          allowed: SHIPPED[folder]?.(specifier),
        },
        {
          group: "tests",
          file: `packages/${folder}/src/graph-${index}.test.ts`,
          allowed: IN_TESTS[folder]?.(specifier),
        },
      ].map(({ group, file, allowed }) => ({
        group: `${folder}: what its ${group} may import of the workspace`,
        file,
        code: `import * as probe from "${specifier}";\n\nexport { probe };\n`,
        expected: allowed ? [] : [{ line: 1, rule: RESTRICTED_IMPORT }],
      })),
    ),
  );
}

function hostProbes(): Probe[] {
  const nodeCode =
    'import { EventEmitter } from "node:events";\nimport { readFile } from "node:fs";\n\nexport { EventEmitter, readFile };\n';
  const workersCode = 'import { DurableObject } from "cloudflare:workers";\n\nexport { DurableObject };\n';
  const reactCode = 'import { useState } from "react";\n\nexport { useState };\n';
  return [...HOST_FREE, "react"].flatMap((folder) => {
    const inPackage = (file: string) => `packages/${folder}/src/${file}`;
    const group = `${folder}: Node, Workers and React`;
    const isHostFree = HOST_FREE.includes(folder);
    const workers = [{ line: 1, rule: RESTRICTED_IMPORT, message: "Workers APIs belong in @agent-tools/cloudflare" }];
    return [
      {
        group,
        file: inPackage("host-node.ts"),
        code: nodeCode,
        expected: [
          { line: 1, rule: NODE_MODULE },
          { line: 2, rule: NODE_MODULE },
        ],
      },
      { group, file: inPackage("host-node.test.ts"), code: nodeCode, expected: [] },
      { group, file: inPackage("host-workers.ts"), code: workersCode, expected: workers },
      { group, file: inPackage("host-workers.test.ts"), code: workersCode, expected: isHostFree ? workers : [] },
      {
        group,
        file: inPackage("host-react.ts"),
        code: reactCode,
        expected: isHostFree
          ? [{ line: 1, rule: RESTRICTED_IMPORT, message: "React belongs in @agent-tools/react" }]
          : [],
      },
    ];
  });
}

function clockProbes(): Probe[] {
  const code =
    "export const later = () => setTimeout(() => undefined, 1);\n" +
    "export const every = () => setInterval(() => undefined, 1);\n" +
    "export const now = () => Date.now();\n";
  const flagged = [1, 2, 3].map((line) => ({ line, rule: RESTRICTED_GLOBAL }));
  const log = 'console.log("x");\n';
  return PACKAGES.flatMap(({ folder }) => {
    const group = `${folder}: time through the Clock, no console`;
    const inPackage = (file: string) => `packages/${folder}/src/${file}`;
    return [
      { group, file: inPackage("clock-probe.ts"), code, expected: flagged },
      { group, file: inPackage("ports/clock.ts"), code, expected: [] },
      { group, file: inPackage("testing/clock-probe.ts"), code, expected: [] },
      { group, file: inPackage("clock-probe.test.ts"), code, expected: [] },
      {
        group,
        file: inPackage("console-probe.ts"),
        code: log,
        expected: [{ line: 1, rule: "lint/suspicious/noConsole" }],
      },
      { group, file: inPackage("console-probe.test.ts"), code: log, expected: [] },
    ];
  });
}

/** `if` statements one after another: a cognitive complexity of `count`. */
function complexFunction(count: number): string {
  const branches = Array.from({ length: count }, (_, index) => `  if (input === ${index}) total += ${index};\n`);
  return `export function complex(input: number): number {\n  let total = 0;\n${branches.join("")}  return total;\n}\n`;
}

const COMPLEXITY_LIMIT = Number(
  /"maxAllowedComplexity":\s*(\d+)/.exec(readFileSync(path.join(ROOT, "tools/lint/repository.jsonc"), "utf8"))?.[1],
);

// The un-awaited guard the plugin catches (SPEC §10): lines 7 and 8 are flagged, the awaited guard is not.
const GUARD_FIXTURE = `class Registry {
  async hasAgentToolRun(agentType: string, runId: string): Promise<boolean> {
    return agentType !== runId;
  }
}
export async function drillIn(registry: Registry, agentType: string, runId: string): Promise<number> {
  if (!registry.hasAgentToolRun(agentType, runId)) return 404;
  if (registry.hasAgentToolRun(agentType, runId)) return 200;
  if (!(await registry.hasAgentToolRun(agentType, runId))) return 404;
  return 200;
}
`;
const GUARD_MESSAGE = "hasAgentToolRun returns a Promise<boolean>";

function otherProbes(): Probe[] {
  const complexity = "lint/complexity/noExcessiveCognitiveComplexity";
  const guard = [
    ...[7, 8].map((line) => ({ line, rule: "plugin", message: GUARD_MESSAGE })),
    // `if (promise)` is caught by Biome's own rule as well; `if (!promise)` only by the plugin.
    { line: 8, rule: "lint/nursery/noMisusedPromises" },
  ];
  return [
    {
      group: "chat: no DOM",
      file: "packages/chat/src/dom-probe.ts",
      code: "export const peers = [window, document, WebSocket];\n",
      expected: [1, 1, 1].map((line) => ({ line, rule: RESTRICTED_GLOBAL })),
    },
    {
      group: "ag-ui: of core-runs' root, only the Clock port's types",
      file: "packages/ag-ui/src/clock-type-probe.ts",
      code: 'import type { Clock, TimerHandle } from "@agent-tools/core-runs";\n\nexport type Timer = [Clock, TimerHandle];\n',
      expected: [],
    },
    {
      group: "ag-ui: of core-runs' root, only the Clock port's types",
      file: "packages/ag-ui/src/registry-probe.ts",
      code: 'import { AgentToolRegistry } from "@agent-tools/core-runs";\n\nexport { AgentToolRegistry };\n',
      expected: [{ line: 1, rule: RESTRICTED_IMPORT, message: "@agent-tools/ag-ui imports only" }],
    },
    {
      group: "demo agents: no timers, no second store",
      file: "apps/demo/src/agents/probe.ts",
      code:
        'import { DurableObjectRunStore } from "@agent-tools/cloudflare";\n\n' +
        "export const poll = () => setTimeout(() => undefined, 1);\nexport { DurableObjectRunStore };\n",
      expected: [
        { line: 1, rule: RESTRICTED_IMPORT, message: "The demo is what users copy" },
        { line: 3, rule: RESTRICTED_GLOBAL },
      ],
    },
    ...["packages/core-runs/src", "apps/demo/scripts"].flatMap((folder) => [
      {
        group: `a function's cognitive complexity, up to ${COMPLEXITY_LIMIT}`,
        file: `${folder}/complex-over.ts`,
        code: complexFunction(COMPLEXITY_LIMIT + 1),
        expected: [{ line: 1, rule: complexity }],
      },
      {
        group: `a function's cognitive complexity, up to ${COMPLEXITY_LIMIT}`,
        file: `${folder}/complex-at.ts`,
        code: complexFunction(COMPLEXITY_LIMIT),
        expected: [],
      },
    ]),
    ...["packages/cloudflare/src", "apps/demo/src"].map((folder) => ({
      group: "hasAgentToolRun is awaited (the plugin)",
      file: `${folder}/drill-in.ts`,
      code: GUARD_FIXTURE,
      expected: guard,
    })),
  ];
}

const PROBES = [...graphProbes(), ...hostProbes(), ...clockProbes(), ...otherProbes()];

type Diagnostic = { category: string; message: string; location: { path: string; start: { line: number } } };

let scratch: string | undefined;
const reported = new Map<string, Diagnostic[]>();

/** The repository's lint configuration, as it is, in a scratch folder: every file Biome reads to configure itself. */
function copyLintConfiguration(into: string): void {
  const configFiles = [
    "biome.json",
    ...readdirSync(path.join(ROOT, "tools/lint"))
      .filter((file) => file.endsWith(".jsonc"))
      .map((file) => `tools/lint/${file}`),
    ...PACKAGES.map(({ folder }) => `packages/${folder}/biome.jsonc`),
    "packages/core-runs/lint/await-has-agent-tool-run.grit",
  ];
  for (const file of configFiles) {
    mkdirSync(path.dirname(path.join(into, file)), { recursive: true });
    cpSync(path.join(ROOT, file), path.join(into, file));
  }
}

beforeAll(async () => {
  scratch = mkdtempSync(path.join(tmpdir(), "agent-tools-lint-"));
  copyLintConfiguration(scratch);
  // The configuration reads .gitignore through git (vcs.useIgnoreFile).
  await run("git", ["init", "-q"], { cwd: scratch });
  for (const probe of PROBES) {
    mkdirSync(path.dirname(path.join(scratch, probe.file)), { recursive: true });
    writeFileSync(path.join(scratch, probe.file), probe.code);
  }
  const args = ["lint", "--reporter=json", "--max-diagnostics=none", ...PROBES.map((probe) => probe.file)];
  // Biome exits non-zero when it reports errors, as it should here.
  const output = await run(BIOME, args, { cwd: scratch, maxBuffer: 64 * 1024 * 1024 }).catch(
    (error: { stdout?: string; stderr?: string }) => ({ stdout: error.stdout ?? "", stderr: error.stderr ?? "" }),
  );
  const report = JSON.parse(output.stdout) as { diagnostics: Diagnostic[] };
  for (const diagnostic of report.diagnostics) {
    const file = diagnostic.location.path.split(path.sep).join("/");
    reported.set(file, [...(reported.get(file) ?? []), diagnostic]);
  }
}, 60_000);

afterAll(() => {
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
});

describe("the architecture's lint rules", () => {
  it("cover every published package: each has a rule of the graph and its own biome.jsonc", () => {
    const folders = PACKAGES.map(({ folder }) => folder).sort();
    expect(Object.keys(SHIPPED).sort()).toEqual(folders);
    expect(SPECIFIERS).toContain("@agent-tools/core-runs/protocol");
  });

  const groups = [...new Set(PROBES.map((probe) => probe.group))];

  it.each(groups)("%s", (group) => {
    const probes = PROBES.filter((probe) => probe.group === group);
    const where = (file: string, line: number, rule: string) => `${file}:${line} ${rule}`;
    const actual = probes.flatMap(({ file }) =>
      (reported.get(file) ?? []).map((diagnostic) => where(file, diagnostic.location.start.line, diagnostic.category)),
    );
    const expected = probes.flatMap(({ file, expected }) => expected.map(({ line, rule }) => where(file, line, rule)));
    expect(actual.sort()).toEqual(expected.sort());
    for (const { file, expected } of probes) {
      for (const { line, rule, message } of expected) {
        if (message === undefined) continue;
        const diagnostic = reported
          .get(file)
          ?.find((candidate) => candidate.location.start.line === line && candidate.category === rule);
        expect(diagnostic?.message, where(file, line, rule)).toContain(message);
      }
    }
  });
});
