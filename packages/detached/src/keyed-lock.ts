/**
 * Runs async work one at a time per key, in call order; different keys never wait for each other. A failing
 * piece of work rejects its own call only.
 * @internal
 */
export class KeyedLock {
  readonly #tails = new Map<string, Promise<void>>();

  run<TResult>(key: string, work: () => Promise<TResult>): Promise<TResult> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const result = previous.then(work);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return result;
  }
}
