// The one Node module the Worker imports (nodejs_compat provides it). Declared here rather than pulling @types/node
// into the Worker's program, whose globals would then mix Node's and the Workers runtime's.
declare module "node:async_hooks" {
  export class AsyncLocalStorage<T> {
    getStore(): T | undefined;
    run<R, A extends unknown[]>(store: T, callback: (...args: A) => R, ...args: A): R;
  }
}
