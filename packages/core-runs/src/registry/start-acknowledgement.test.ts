import { describe, expect, it } from "vitest";
import { StartAcknowledgement } from "./start-acknowledgement.js";

describe("StartAcknowledgement", () => {
  it("needs nothing for a run acknowledged before", async () => {
    const acknowledgement = StartAcknowledgement.notNeeded();
    expect(acknowledgement.isSettled).toBe(true);
    expect(await acknowledgement.settle()).toBe(true);
  });

  it("writes once, whoever asks first, and remembers the answer", async () => {
    let writes = 0;
    const acknowledgement = StartAcknowledgement.waiting(async () => {
      writes += 1;
      return true;
    });
    expect(acknowledgement.state).toBe("waiting");
    const [first, second] = await Promise.all([acknowledgement.settle(), acknowledgement.settle()]);
    expect([first, second, await acknowledgement.settle()]).toEqual([true, true, true]);
    expect(writes).toBe(1);
    expect(acknowledgement.state).toBe("written");
  });

  it("is refused when the row changed meanwhile", async () => {
    const acknowledgement = StartAcknowledgement.waiting(async () => false);
    expect(await acknowledgement.settle()).toBe(false);
    expect(acknowledgement.state).toBe("refused");
    expect(acknowledgement.isSettled).toBe(true);
  });

  it("is tried again after a failed write", async () => {
    let calls = 0;
    const acknowledgement = StartAcknowledgement.waiting(async () => {
      calls += 1;
      if (calls === 1) throw new Error("storage busy");
      return true;
    });
    await expect(acknowledgement.settle()).rejects.toThrow("storage busy");
    expect(acknowledgement.state).toBe("waiting");
    expect(await acknowledgement.settle()).toBe(true);
    expect(calls).toBe(2);
  });
});
