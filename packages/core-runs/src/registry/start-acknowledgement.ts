/**
 * The parent's record that the child acknowledged `start`, as one explicit state: `not-needed` (the run was
 * acknowledged before this driver), `waiting` (the child answered `start`; the write waits for the tail to open, so
 * that a Durable Object's output gate never holds the tail request behind it), `writing`, `written`, or `refused`
 * (the row changed meanwhile — cancelled, cleared — and following stops). The write happens once, whoever asks
 * first: the tail opening, its first item, its end, or a cancel that must reach the child.
 * @internal
 */
export class StartAcknowledgement {
  #state: "not-needed" | "waiting" | "writing" | "written" | "refused";
  readonly #write: (() => Promise<boolean>) | null;
  #writing: Promise<boolean> | null = null;

  private constructor(write: (() => Promise<boolean>) | null) {
    this.#write = write;
    this.#state = write ? "waiting" : "not-needed";
  }

  /** A run acknowledged before this driver started. */
  static notNeeded(): StartAcknowledgement {
    return new StartAcknowledgement(null);
  }

  /** A fresh start: `write` records the acknowledgement and resolves whether the row allowed it. */
  static waiting(write: () => Promise<boolean>): StartAcknowledgement {
    return new StartAcknowledgement(write);
  }

  get state(): "not-needed" | "waiting" | "writing" | "written" | "refused" {
    return this.#state;
  }

  /** True once nothing is left to write (written, or never needed). */
  get isSettled(): boolean {
    return this.#state === "not-needed" || this.#state === "written" || this.#state === "refused";
  }

  /** Write it now if not yet done; resolves `false` only when the row refused it (the run changed meanwhile). */
  settle(): Promise<boolean> {
    if (this.#state === "not-needed" || this.#state === "written") return Promise.resolve(true);
    if (this.#state === "refused") return Promise.resolve(false);
    const write = this.#write;
    if (!write) return Promise.resolve(true);
    this.#state = "writing";
    this.#writing ??= write().then(
      (accepted) => {
        this.#state = accepted ? "written" : "refused";
        return accepted;
      },
      (error: unknown) => {
        // A failed write is tried again by the next caller.
        this.#state = "waiting";
        this.#writing = null;
        throw error;
      },
    );
    return this.#writing;
  }
}
