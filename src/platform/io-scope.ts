import { AsyncLocalStorage } from "node:async_hooks";

/**
 * The Workers runtime does not let one invocation (a request, a queue batch, a cron event) await I/O that another one
 * started: the waiter can be cancelled together with the invocation that owns the I/O, and a request then answers the
 * runtime's bare 500. So a query under way is shared only inside the invocation that started it; between invocations
 * only settled answers are shared (the caches beside each use of this).
 */
const scope = new AsyncLocalStorage<object>();

/** Runs one invocation (src/index.ts wraps fetch, queue and scheduled) in its own scope. */
export const runInIoScope = <R>(work: () => R): R => scope.run({}, work);

/** Concurrent calls with one key inside one invocation share one promise; outside any invocation, nothing is shared. */
export class SingleFlight<T> {
  private readonly byScope = new WeakMap<object, Map<string, Promise<T>>>();

  run(key: string, start: () => Promise<T>): Promise<T> {
    const owner = scope.getStore();
    if (!owner) return start();
    let flights = this.byScope.get(owner);
    if (!flights) this.byScope.set(owner, (flights = new Map()));
    const pending = flights.get(key);
    if (pending) return pending;
    const started = start().finally(() => flights.delete(key));
    flights.set(key, started);
    return started;
  }
}
