import type { StoreLocation } from "./location.js";
import { type OpenStoreOptions, Store } from "./store.js";

export interface StoreOnDemandOptions extends OpenStoreOptions {
  /** How long the database stays open after its last use (default 1000 ms). */
  idleMs?: number;
}

/**
 * A results database held only while it is used: opened at the first use, closed once `idleMs`
 * passed without one. A long-lived reader (`evals view`) so leaves the embedded database, which one
 * process of the machine holds at a time, to the runs recording into it meanwhile: each waits for
 * the other's turn (see Store.open) instead of the run failing to record.
 */
export class StoreOnDemand {
  private opening: Promise<Store> | undefined;
  private users = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly location: Exclude<StoreLocation, { kind: "off" }>,
    private readonly options: StoreOnDemandOptions = {},
  ) {}

  /** Runs `work` on the open database (opening it first when it is closed). */
  async use<T>(work: (store: Store) => Promise<T>): Promise<T> {
    clearTimeout(this.timer);
    this.users++;
    try {
      this.opening ??= Store.open(this.location, this.options);
      let store: Store;
      try {
        store = await this.opening;
      } catch (error) {
        this.opening = undefined;
        throw error;
      }
      return await work(store);
    } finally {
      if (--this.users === 0) {
        this.timer = setTimeout(() => void this.close(), this.options.idleMs ?? 1000);
        this.timer.unref();
      }
    }
  }

  /** Closes the database now (a later use opens it again). */
  async close(): Promise<void> {
    clearTimeout(this.timer);
    const opening = this.opening;
    this.opening = undefined;
    const store = await opening?.catch(() => undefined);
    await store?.close();
  }
}
