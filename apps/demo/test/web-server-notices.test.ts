import { describe, expect, it } from "vitest";
// The server's own words (the page holds a copy, since no server code goes into the page's bundle).
import { FAILED_TURN_TEXT } from "../../../packages/chat/src/chat-engine.js";
import { STOPPED_TOOL_CALL_TEXT, UNFINISHED_TOOL_CALL_TEXT } from "../../../packages/chat/src/unfinished-tool-calls.js";
import * as page from "../web/src/server-notices.js";

describe("the words the page reads in the stored conversation", () => {
  it("are the server's", () => {
    expect({ ...page }).toEqual({ FAILED_TURN_TEXT, STOPPED_TOOL_CALL_TEXT, UNFINISHED_TOOL_CALL_TEXT });
  });
});
