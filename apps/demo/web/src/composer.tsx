import { type FormEvent, type ReactNode, useState } from "react";

const HINT_ID = "composer-hint";

/**
 * The message box: Enter sends; Stop ends the reply in flight (this tab's, or one it follows). While a message may not
 * be sent (`blockedReason`: the connection is down, a message not sent waits for Retry or Discard) Send is off and
 * says why; the box keeps what is typed.
 */
export function Composer({
  isBusy,
  blockedReason,
  onSend,
  onStop,
}: {
  isBusy: boolean;
  blockedReason: string | null;
  onSend(text: string): boolean;
  onStop(): void;
}): ReactNode {
  const [text, setText] = useState("");
  const canSend = !isBusy && blockedReason === null && text.trim() !== "";
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (canSend && onSend(text)) setText("");
  };
  return (
    <form className="composer" onSubmit={onSubmit} autoComplete="off" aria-label="Message the assistant">
      <label htmlFor="prompt" className="visually-hidden">
        Message
      </label>
      <input
        id="prompt"
        name="prompt"
        value={text}
        onChange={(event) => setText(event.target.value)}
        placeholder="Message the assistant, e.g. research cats"
        aria-describedby={blockedReason === null ? undefined : HINT_ID}
        // biome-ignore lint/a11y/noAutofocus: the page is a chat; typing is what it is for
        autoFocus
      />
      {blockedReason !== null && !isBusy && (
        <p id={HINT_ID} className="composer-hint">
          {blockedReason}
        </p>
      )}
      {isBusy ? (
        <button type="button" className="large" onClick={onStop}>
          Stop
        </button>
      ) : (
        <button
          type="submit"
          className="primary large"
          aria-disabled={!canSend}
          aria-describedby={blockedReason === null ? undefined : HINT_ID}
        >
          Send
        </button>
      )}
    </form>
  );
}
