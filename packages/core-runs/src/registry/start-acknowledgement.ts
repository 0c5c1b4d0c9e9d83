/**
 * The parent's record that the child acknowledged `start`, as one explicit state: `not-needed` (the run was
 * acknowledged before this driver), `waiting` (not written yet: it rides on the next write of the run's row, so that
 * it costs no write of its own and never holds the tail behind a Durable Object's output gate), `writing`, `written`,
 * or `refused` (the row changed meanwhile — cancelled, cleared — and following stops). The write happens once,
 * whoever asks first: the first write of the position, a tail that ended early, or a cancel that must reach the
 * child; or it is `written()` by the terminal write it rode on. Until then the row keeps the whole input, so a parent
 * restarted in between starts the child again (idempotently: the child knows the run and runs no second turn).
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

  /** It was written by another write of the row (the terminal it rode on). */
  written(): void {
    if (this.#state === "waiting") this.#state = "written";
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
