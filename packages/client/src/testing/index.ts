// "@agent-tools/client/testing": fakes to test code that uses the client, with no network and no real time.

export { flushMicrotasks, ManualClock } from "@agent-tools/core-runs/testing";
export { FakeWebSocket, fakeWebSockets } from "./fake-web-socket.js";
