import { countRoundTrip, D1, DURABLE_OBJECT, QUEUE, R2, type RoundTripKind } from "./trace";

/**
 * The Worker's env with its storage bindings counted (src/platform/trace.ts): D1, Durable Object namespaces, Queues
 * and R2 buckets, recognised by their methods. Wrapped once per env object; the proxies ask the async context which
 * request is calling, so `drizzle(env.DB)`, stubs and queues are used exactly as before.
 */

/** The SMTP sidecar container is the email product's own network work (product time), not storage. */
const NOT_STORAGE = new Set(["SMTP_SIDECAR"]);

/** D1 `batch` needs the real statements: a statement proxy hands its target out under this key. */
const TARGET = Symbol("traced-target");

type Methods = Record<string | symbol, unknown>;

const wrapped = new WeakMap<Env, Env>();

export function tracedEnv(env: Env): Env {
  let traced = wrapped.get(env);
  if (!traced) wrapped.set(env, (traced = wrapEnv(env)));
  return traced;
}

function wrapEnv(env: Env): Env {
  const bindings = new Map<string | symbol, unknown>();
  return new Proxy(env, {
    get(target, key) {
      const found = bindings.get(key);
      if (found !== undefined) return found;
      const value: unknown = Reflect.get(target, key);
      if (typeof value !== "object" || value === null) return value;
      // Objects in env never change: remember them, wrapped or not, so a binding is recognised once.
      const binding = typeof key === "string" && !NOT_STORAGE.has(key) ? (wrapBinding(value) ?? value) : value;
      bindings.set(key, binding);
      return binding;
    },
  });
}

const has = (value: object, ...methods: string[]) => methods.every((m) => typeof (value as Methods)[m] === "function");

function wrapBinding(value: object): object | null {
  if (has(value, "prepare", "batch")) return d1Database(value);
  if (has(value, "idFromName", "get")) return namespace(value);
  if (has(value, "send", "sendBatch")) return counted(value, { kind: QUEUE, counted: ["send", "sendBatch"] });
  if (has(value, "head", "put", "list", "createMultipartUpload")) return r2Bucket(value);
  return null;
}

interface Wrapping {
  /** What a call of one of `counted` is. */
  kind?: RoundTripKind;
  counted?: string[];
  /** Wraps what a method returns (a statement, a stub, an upload). */
  results?: Record<string, (result: unknown) => unknown>;
  /** Rewrites a method's arguments (D1 `batch` gets the real statements). */
  args?: Record<string, (args: unknown[]) => unknown[]>;
}

/** A long-lived binding: each method is wrapped once, bound to the real binding (native methods need it as `this`). */
function counted(target: object, { kind, counted = [], results = {}, args: rewrite = {} }: Wrapping): object {
  const methods = new Map<string | symbol, unknown>();
  return new Proxy(target, {
    get(real, key) {
      const found = methods.get(key);
      if (found !== undefined) return found;
      const value: unknown = Reflect.get(real, key);
      if (typeof value !== "function" || key === "constructor") return value;
      const fn = value as (...args: unknown[]) => unknown;
      const name = typeof key === "string" ? key : "";
      const counts = kind !== undefined && counted.includes(name);
      const wrap = results[name];
      const rewriteArgs = rewrite[name];
      const method = (...args: unknown[]) => {
        if (counts) countRoundTrip(kind!);
        const result = Reflect.apply(fn, real, rewriteArgs ? rewriteArgs(args) : args);
        return wrap ? wrap(result) : result;
      };
      methods.set(key, method);
      return method;
    },
  });
}

const realStatements = ([statements, ...rest]: unknown[]) => [(statements as Methods[]).map((s) => s[TARGET] ?? s), ...rest];

/** `batch` is one round trip however many statements it carries. */
function d1Database(db: object): object {
  return counted(db, {
    kind: D1,
    counted: ["batch", "exec"],
    results: { prepare: statement, withSession: (session) => d1Database(session as object) },
    args: { batch: realStatements },
  });
}

const STATEMENT_CALLS = new Set(["run", "all", "first", "raw"]);

/** A prepared statement lives for one query: its proxy is made per statement (and per `bind`). */
function statement(real: unknown): unknown {
  if (typeof real !== "object" || real === null) return real;
  return new Proxy(real, {
    get(target, key) {
      if (key === TARGET) return target;
      const value: unknown = Reflect.get(target, key);
      if (typeof value !== "function" || key === "constructor") return value;
      const fn = value as (...args: unknown[]) => unknown;
      if (key === "bind") return (...args: unknown[]) => statement(Reflect.apply(fn, target, args));
      if (typeof key === "string" && STATEMENT_CALLS.has(key)) {
        return (...args: unknown[]) => {
          countRoundTrip(D1);
          return Reflect.apply(fn, target, args);
        };
      }
      return (...args: unknown[]) => Reflect.apply(fn, target, args);
    },
  });
}

/** `get` and `getByName` hand out counted stubs; ids (`idFromName`, ...) are made locally and not counted. */
function namespace(ns: object): object {
  return counted(ns, { results: { get: stub, getByName: stub, jurisdiction: (sub) => namespace(sub as object) } });
}

/** A stub lives for a request or less: its proxy is made per stub; every method call (RPC or fetch) is one round trip. */
function stub(real: unknown): unknown {
  if (typeof real !== "object" || real === null) return real;
  return new Proxy(real, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key);
      if (typeof value !== "function" || key === "then") return value;
      const fn = value as (...args: unknown[]) => unknown;
      if (typeof key !== "string") return fn.bind(target);
      return (...args: unknown[]) => {
        countRoundTrip(DURABLE_OBJECT);
        return Reflect.apply(fn, target, args);
      };
    },
  });
}

/** Every bucket method is a round trip except `resumeMultipartUpload`, whose upload's methods are. */
function r2Bucket(bucket: object): object {
  const upload = (u: unknown) => (typeof u === "object" && u !== null ? counted(u, { kind: R2, counted: ["uploadPart", "abort", "complete"] }) : u);
  return counted(bucket, {
    kind: R2,
    counted: ["head", "get", "put", "list", "delete", "createMultipartUpload"],
    results: { createMultipartUpload: (p) => (p as Promise<unknown>).then(upload), resumeMultipartUpload: upload },
  });
}
