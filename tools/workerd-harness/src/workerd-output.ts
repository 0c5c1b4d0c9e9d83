import { once } from "node:events";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";

/**
 * workerd's own diagnostics that it marks as expected (`NOSENTRY`: not worth reporting): e.g. "SQLite alarm handler
 * canceled with requestScheduledAlarm", which a test that kills and restarts an object with an armed alarm causes.
 */
export function isExpectedWorkerdDiagnostic(line: string): boolean {
  return /\bNOSENTRY\b/.test(line);
}

/**
 * Miniflare's `handleRuntimeStdio`: workerd's output line by line, as Miniflare prints it by default (stdout to
 * `console.log`, stderr to `console.error`), without the diagnostics workerd itself marks as expected, so that a
 * passing test run prints nothing of them. Everything else (a Worker's console, workerd's errors) goes through.
 * Resolves once both streams have ended.
 */
export function forwardWorkerdOutput(
  stdout: Readable,
  stderr: Readable,
  write: { out: (line: string) => void; err: (line: string) => void } = {
    out: (line) => console.log(line),
    err: (line) => console.error(line),
  },
): Promise<void> {
  const forward = (stream: Readable, to: (line: string) => void) => {
    const lines = createInterface(stream);
    lines.on("line", (line) => {
      if (!isExpectedWorkerdDiagnostic(line)) to(line);
    });
    return once(lines, "close").then(() => undefined);
  };
  return Promise.all([forward(stdout, write.out), forward(stderr, write.err)]).then(() => undefined);
}
