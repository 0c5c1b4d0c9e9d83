// What the server (`@agent-tools/chat`) writes into the stored conversation to say how something ended. The page
// reads these words (it holds no server code); test/web-server-notices.test.ts keeps them equal to the server's.

/** The error of a tool call that Stop ended before it finished. */
export const STOPPED_TOOL_CALL_TEXT = "Stopped by the user before this tool finished";

/** The error of a tool call whose answer failed or was interrupted before it finished. */
export const UNFINISHED_TOOL_CALL_TEXT = "The answer ended before this tool finished";

/** How a failed answer's last text starts (its error follows). */
export const FAILED_TURN_TEXT = "This answer failed:";
