#!/usr/bin/env node
// Prints the Node version the toolchain runs on, and fails when it is older than the one the packages support.
//
// `pnpm <script>` puts node_modules/.bin first on PATH, and the root's optionalDependencies put a Node 22 binary
// there (the `node-<platform>-<arch>` package for this machine, from the npm registry). So scripts, vitest, tsc
// and the tools they start run on it even where the system Node is older. See docs/decisions/.

const REQUIRED_MAJOR = 22;

const major = Number(process.versions.node.split(".")[0]);
process.stdout.write(`node ${process.version} (${process.execPath})\n`);
if (!(major >= REQUIRED_MAJOR)) {
  process.stderr.write(
    `Node ${REQUIRED_MAJOR} or later is needed, this is ${process.version}. Run it through pnpm (\`pnpm install\` ` +
      `puts Node ${REQUIRED_MAJOR} in node_modules/.bin for linux, macOS and Windows on x64/arm64), ` +
      `or install Node ${REQUIRED_MAJOR}.\n`,
  );
  process.exit(1);
}
