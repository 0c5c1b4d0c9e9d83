#!/usr/bin/env node
// `node bench/anchor-target/scripts/sittings.mjs <sitting.jsonl>…`: issue 33's goals over several `pnpm bench`
// sittings (each file one sitting's JSON lines, as `pnpm bench -s > file` writes them). For each goal: its median and
// range over the sittings that measured it and how many met it; for each sitting: the goals it missed; and which
// sittings met every goal. The goals are evaluated again with today's definitions (scripts/lib/goals.mjs).
//
// stdout: the summary as markdown; `--json`: as one JSON line.
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { renderSittings, sittingFromLines, summarizeSittings } from "./lib/sittings.mjs";

const args = process.argv.slice(2);
const json = args.includes("--json");
const files = args.filter((arg) => arg !== "--json");
if (files.length === 0) {
  console.error("usage: node bench/anchor-target/scripts/sittings.mjs [--json] <sitting.jsonl>…");
  process.exit(2);
}

const sittings = files.map((file) => {
  const lines = readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim().startsWith("{"))
    .map((line, index) => {
      try {
        return JSON.parse(line);
      } catch (error) {
        throw new Error(`${file}: line ${index + 1} is not JSON (${/** @type {Error} */ (error).message})`);
      }
    });
  return sittingFromLines(basename(file, ".jsonl"), lines);
});
const summary = summarizeSittings(sittings);
process.stdout.write(json ? `${JSON.stringify(summary)}\n` : `${renderSittings(summary)}\n`);
