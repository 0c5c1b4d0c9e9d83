import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { authTokenKey, pendingChangesets } from "../../../scripts/release.mjs";

// `pnpm release` itself runs in the consumer test (it needs a registry): there a release refused at publish is
// finished by running the same command again. These are its parts that can be checked offline.

describe("pnpm release", () => {
  let directory: string | undefined;
  afterEach(async () => {
    if (directory) await rm(directory, { recursive: true, force: true });
    directory = undefined;
  });

  it("finds the pending changesets: every Markdown file of .changeset but its README", async () => {
    directory = await mkdtemp(path.join(tmpdir(), "release-"));
    await mkdir(path.join(directory, ".changeset"));
    for (const file of ["README.md", "config.json", "b-change.md", "a-change.md"]) {
      await writeFile(path.join(directory, ".changeset", file), "");
    }
    expect(pendingChangesets(directory)).toEqual(["a-change.md", "b-change.md"]);
    await rm(path.join(directory, ".changeset", "a-change.md"));
    await rm(path.join(directory, ".changeset", "b-change.md"));
    // After `changeset version` consumed them: a release run again skips the version step.
    expect(pendingChangesets(directory)).toEqual([]);
  });

  it("names the npm setting that holds a registry's token, host, port and path included", () => {
    expect(authTokenKey("http://127.0.0.1:4873/")).toBe("//127.0.0.1:4873/:_authToken");
    expect(authTokenKey("https://npm.example.com/private")).toBe("//npm.example.com/private/:_authToken");
  });
});
