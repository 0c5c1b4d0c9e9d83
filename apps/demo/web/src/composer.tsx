import { type FormEvent, type ReactNode, useState } from "react";

/** The message box: Enter sends; Stop ends the reply in flight (this tab's, or one it follows). */
export function Composer({
  isBusy,
  onSend,
  onStop,
}: {
  isBusy: boolean;
  onSend(text: string): boolean;
  onStop(): void;
}): ReactNode {
  const [text, setText] = useState("");
  const canSend = !isBusy && text.trim() !== "";
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
        // biome-ignore lint/a11y/noAutofocus: the page is a chat; typing is what it is for
        autoFocus
      />
      {isBusy ? (
        <button type="button" className="large" onClick={onStop}>
          Stop
        </button>
      ) : (
        <button type="submit" className="primary large" aria-disabled={!canSend}>
          Send
        </button>
      )}
    </form>
  );
}
