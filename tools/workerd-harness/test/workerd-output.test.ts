import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { forwardWorkerdOutput } from "../src/workerd-output.js";

describe("workerd's output in tests", () => {
  it("goes through line by line, without the diagnostics workerd marks as expected (NOSENTRY)", async () => {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const out: string[] = [];
    const err: string[] = [];
    const done = forwardWorkerdOutput(stdout, stderr, { out: (line) => out.push(line), err: (line) => err.push(line) });
    stdout.end("a Worker's console.log\n");
    stderr.end(
      [
        "workerd/io/actor-sqlite.c++:1045: warning: NOSENTRY SQLite alarm handler canceled with requestScheduledAlarm.",
        "workerd/server/server.c++:4210: error: Uncaught Error: boom",
        "",
      ].join("\n"),
    );
    await done;
    expect(out).toEqual(["a Worker's console.log"]);
    expect(err).toEqual(["workerd/server/server.c++:4210: error: Uncaught Error: boom"]);
  });
});
