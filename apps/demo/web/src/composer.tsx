import {
  type FormEvent,
  type ReactNode,
  type Ref,
  useImperativeHandle,
  useLayoutEffect,
  useRef,
  useState,
} from "react";
import { tooLargeToSend } from "./message-size.js";

const HINT_ID = "composer-hint";
const STATUS_ID = "composer-status";

/** What the page may do with the message box. */
export type ComposerHandle = {
  /** Put `text` back into the box (a message not sent, discarded), before what is typed there now. */
  putBack(text: string): void;
};

/**
 * The message box, fixed at the bottom of the page, and what the page says about sending right above it — the
 * connection banner (`status`), why Send is off, or why a message was refused — so nothing it says covers the
 * conversation: its height is the page's `--composer-h`, the room the conversation keeps free below it.
 *
 * Enter sends; Stop ends the reply in flight (this tab's, or one it follows). Send and Stop are both always there, in
 * the same places — only which of them is on changes — so a reply starting while you type (a background run's
 * completion answered) never turns the button under your finger into another. A message over the server's size limit
 * is refused here, before anything is sent, and stays in the box. While a message may not be sent (`blockedReason`:
 * the connection is down, a message not sent waits for Retry or Discard) Send is off and says why; the box keeps what
 * is typed.
 */
export function Composer({
  isBusy,
  blockedReason,
  status,
  onSend,
  onStop,
  ref,
}: {
  isBusy: boolean;
  /** Why Send is off (`""`: the `status` above says it), or `null` when a message may be sent. */
  blockedReason: string | null;
  /** What the page says about the connection (a live region: always rendered, empty when all is well). */
  status: ReactNode;
  onSend(text: string): boolean;
  onStop(): void;
  ref?: Ref<ComposerHandle>;
}): ReactNode {
  const [text, setText] = useState("");
  /** Why the text in the box was not sent (too large); cleared once the text changes. */
  const [refusal, setRefusal] = useState<string | null>(null);
  const form = useRef<HTMLFormElement>(null);
  const canSend = !isBusy && blockedReason === null && text.trim() !== "";
  useImperativeHandle(ref, () => ({
    putBack: (restored) => setText((current) => (current.trim() === "" ? restored : `${restored} ${current}`)),
  }));
  // The room the conversation keeps below it: the composer's height, whatever it says above the box.
  useLayoutEffect(() => {
    const element = form.current;
    if (!element) return;
    const root = document.documentElement;
    const observer = new ResizeObserver(() => {
      root.style.setProperty("--composer-h", `${Math.ceil(element.getBoundingClientRect().height)}px`);
    });
    observer.observe(element);
    return () => {
      observer.disconnect();
      root.style.removeProperty("--composer-h");
    };
  }, []);

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!canSend) return;
    const tooLarge = tooLargeToSend(text.trim());
    if (tooLarge !== null) {
      setRefusal(`${tooLarge} Shorten it and send again.`);
      return;
    }
    if (onSend(text)) setText("");
  };
  const hint = refusal ?? (isBusy || !blockedReason ? null : blockedReason);
  // What the box and Send are described by: why Send is off, and the connection's state when that is why.
  const describedBy =
    [blockedReason === "" && !isBusy ? STATUS_ID : null, hint === null ? null : HINT_ID].filter(Boolean).join(" ") ||
    undefined;
  return (
    <form className="composer" ref={form} onSubmit={onSubmit} autoComplete="off" aria-label="Message the assistant">
      <div className="composer-notes">
        <div id={STATUS_ID} className="connection-banner" role="status">
          {status}
        </div>
        {hint !== null && (
          <p
            id={HINT_ID}
            className={`composer-hint${refusal !== null ? " is-error" : ""}`}
            role={refusal ? "alert" : undefined}
          >
            {hint}
          </p>
        )}
      </div>
      <div className="composer-row">
        <label htmlFor="prompt" className="visually-hidden">
          Message
        </label>
        <input
          id="prompt"
          name="prompt"
          value={text}
          onChange={(event) => {
            setText(event.target.value);
            setRefusal(null);
          }}
          placeholder="Message the assistant, e.g. research cats"
          aria-describedby={describedBy}
          aria-invalid={refusal !== null}
          // biome-ignore lint/a11y/noAutofocus: the page is a chat; typing is what it is for
          autoFocus
        />
        <button type="submit" className="primary large" aria-disabled={!canSend} aria-describedby={describedBy}>
          Send
        </button>
        <button
          type="button"
          className="large"
          aria-disabled={!isBusy}
          onClick={() => {
            if (isBusy) onStop();
          }}
        >
          Stop
        </button>
      </div>
    </form>
  );
}
