// A test Worker in workerd, one for a whole test file (the contract suites: many cases, one runtime).
import { bundleWorker } from "@agent-tools/workerd-harness/bundle";
import {
  createPersistDirectory,
  type DurableObjectBinding,
  MiniflareHost,
  type PersistDirectory,
} from "@agent-tools/workerd-harness/miniflare-host";
import { afterAll, beforeAll } from "vitest";

/**
 * Runs the Worker `entry` (a path) with `durableObjects` on a fresh persistence folder before the file's tests, and
 * disposes it, removing the folder, after them. Returns the running host (it throws when asked before `beforeAll`).
 */
export function workerPerFile(
  entry: string,
  durableObjects: Record<string, DurableObjectBinding>,
): () => MiniflareHost {
  let persist: PersistDirectory | undefined;
  let host: MiniflareHost | undefined;
  beforeAll(async () => {
    persist = await createPersistDirectory();
    host = await MiniflareHost.start({
      scriptPath: await bundleWorker(entry),
      durableObjects,
      persistDirectory: persist.path,
    });
  });
  afterAll(async () => {
    await host?.dispose();
    await persist?.remove();
  });
  return () => {
    if (!host) throw new Error(`The worker ${entry} is not running (asked outside the file's tests)`);
    return host;
  };
}
