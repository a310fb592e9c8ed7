/** A counting semaphore: at most `limit` holders at once, the rest wait in FIFO order. */
export class Semaphore {
  #free: number;
  readonly #waiting: Array<() => void> = [];

  constructor(limit: number) {
    this.#free = limit;
  }

  async acquire(): Promise<() => void> {
    if (this.#free > 0) this.#free--;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiting.shift();
      if (next) next();
      else this.#free++;
    };
  }
}
