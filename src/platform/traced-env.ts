import { countRoundTrip, D1_PRIMARY, D1_REPLICA, DURABLE_OBJECT, QUEUE, R2, type RoundTripKind } from "./trace";

/**
 * The Worker's env with its storage bindings counted (src/platform/trace.ts): D1, Durable Object namespaces, Queues
 * and R2 buckets, recognised by their methods. Wrapped once per env object; the proxies ask the async context which
 * request is calling, so `drizzle(env.DB)`, stubs and queues are used exactly as before.
 */

/** The SMTP sidecar container is the email product's own network work (product time), not storage. */
const NOT_STORAGE = new Set(["SMTP_SIDECAR"]);

/** D1 `batch` needs the real statements: a statement proxy hands its target out under this key. */
const TARGET = Symbol("traced-target");
/** What a statement proxy's query is: its kind (primary or replica) and whether it writes. */
const KIND = Symbol("traced-kind");
const WRITES = Symbol("traced-writes");

type Methods = Record<string | symbol, unknown>;

const wrapped = new WeakMap<Env, Env>();

export function tracedEnv(env: Env): Env {
  let traced = wrapped.get(env);
  if (!traced) wrapped.set(env, (traced = wrapEnv(env)));
  return traced;
}

/**
 * The development switch `DEV_ADDED_LATENCY_MS`: every Durable Object call and D1 primary query waits this long before
 * it is made, standing for the distance between a caller and the object or the primary (bench/hot-path.mjs). Replica
 * reads, queues and R2 are left alone. 0 (the default, and production's) adds nothing, not even a timer.
 */
type Later = <T>(work: () => T) => T | Promise<T>;

function addedLatency(ms: number): Later {
  if (!(Number.isFinite(ms) && ms > 0)) return (work) => work();
  return (work) => new Promise<void>((resolve) => setTimeout(resolve, ms)).then(work);
}

function wrapEnv(env: Env): Env {
  const later = addedLatency(Number(env.DEV_ADDED_LATENCY_MS ?? 0));
  const bindings = new Map<string | symbol, unknown>();
  return new Proxy(env, {
    get(target, key) {
      const found = bindings.get(key);
      if (found !== undefined) return found;
      const value: unknown = Reflect.get(target, key);
      if (typeof value !== "object" || value === null) return value;
      // Objects in env never change: remember them, wrapped or not, so a binding is recognised once.
      const binding = typeof key === "string" && !NOT_STORAGE.has(key) ? (wrapBinding(value, later) ?? value) : value;
      bindings.set(key, binding);
      return binding;
    },
  });
}

const has = (value: object, ...methods: string[]) => methods.every((m) => typeof (value as Methods)[m] === "function");

function wrapBinding(value: object, later: Later): object | null {
  if (has(value, "prepare", "batch")) return d1Database(value, later);
  if (has(value, "idFromName", "get")) return namespace(value, later);
  if (has(value, "send", "sendBatch")) return counted(value, { kind: QUEUE, counted: ["send", "sendBatch"] });
  if (has(value, "head", "put", "list", "createMultipartUpload")) return r2Bucket(value);
  return null;
}

interface Wrapping {
  /** What a call of one of `counted` is (given the call's arguments: a session's batch depends on its statements). */
  kind?: RoundTripKind | ((args: unknown[]) => RoundTripKind);
  counted?: string[];
  /** Wraps what a method returns (a statement, a stub, an upload). */
  results?: Record<string, (result: unknown) => unknown>;
  /** Rewrites a method's arguments (D1 `batch` gets the real statements). */
  args?: Record<string, (args: unknown[]) => unknown[]>;
  /** Delays primary D1 queries (the latency switch). */
  later?: Later;
}

/** A long-lived binding: each method is wrapped once, bound to the real binding (native methods need it as `this`). */
function counted(
  target: object,
  { kind, counted = [], results = {}, args: rewrite = {}, later = (work) => work() }: Wrapping,
): object {
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
        const call = () => {
          const result = Reflect.apply(fn, real, rewriteArgs ? rewriteArgs(args) : args);
          return wrap ? wrap(result) : result;
        };
        if (!counts) return call();
        const which = typeof kind === "function" ? kind(args) : kind!;
        countRoundTrip(which, which === D1_PRIMARY && writes(name, args));
        return which === D1_PRIMARY ? later(call) : call();
      };
      methods.set(key, method);
      return method;
    },
  });
}

const realStatements = ([statements, ...rest]: unknown[]) => [
  (statements as Methods[]).map((s) => s[TARGET] ?? s),
  ...rest,
];

/** Reads start with SELECT (or a WITH before one); anything else writes, and only the primary takes writes. */
const READ = /^\s*(select|with)\b/i;

/** Whether a counted D1 call writes: `exec` may; a batch does when one of its statements does. */
function writes(method: string, args: unknown[]): boolean {
  if (method === "exec") return !READ.test(String(args[0]));
  if (method === "batch") return (args[0] as Methods[]).some((s) => s[WRITES] !== false);
  return false;
}

/** `batch` is one round trip however many statements it carries. */
function d1Database(db: object, later: Later): object {
  let sql = "";
  return counted(db, {
    kind: D1_PRIMARY,
    counted: ["batch", "exec"],
    results: {
      prepare: (real) => statement(real, D1_PRIMARY, later, !READ.test(sql)),
      withSession: (session) => d1Session(session as object, later),
    },
    args: { batch: realStatements, prepare: (args) => ((sql = String(args[0])), args) },
    later,
  });
}

/**
 * A Sessions API session (`env.DB.withSession(...)`): its reads may be answered by a replica near the caller, its
 * writes go to the primary. A batch is a replica read only when every statement in it is.
 */
function d1Session(session: object, later: Later): object {
  const kindOf = ([statements]: unknown[]) =>
    (statements as Methods[]).every((s) => s[KIND] === D1_REPLICA) ? D1_REPLICA : D1_PRIMARY;
  let sql = "";
  return counted(session, {
    kind: kindOf,
    counted: ["batch"],
    args: {
      batch: realStatements,
      prepare: (args) => {
        sql = String(args[0]);
        return args;
      },
    },
    results: {
      prepare: (real) =>
        READ.test(sql) ? statement(real, D1_REPLICA, later, false) : statement(real, D1_PRIMARY, later, true),
    },
    later,
  });
}

const STATEMENT_CALLS = new Set(["run", "all", "first", "raw"]);

/** A prepared statement lives for one query: its proxy is made per statement (and per `bind`). */
function statement(real: unknown, kind: RoundTripKind, later: Later, write: boolean): unknown {
  if (typeof real !== "object" || real === null) return real;
  return new Proxy(real, {
    get(target, key) {
      if (key === TARGET) return target;
      if (key === KIND) return kind;
      if (key === WRITES) return write;
      const value: unknown = Reflect.get(target, key);
      if (typeof value !== "function" || key === "constructor") return value;
      const fn = value as (...args: unknown[]) => unknown;
      if (key === "bind") return (...args: unknown[]) => statement(Reflect.apply(fn, target, args), kind, later, write);
      if (typeof key === "string" && STATEMENT_CALLS.has(key)) {
        return (...args: unknown[]) => {
          countRoundTrip(kind, write);
          return kind === D1_PRIMARY ? later(() => Reflect.apply(fn, target, args)) : Reflect.apply(fn, target, args);
        };
      }
      return (...args: unknown[]) => Reflect.apply(fn, target, args);
    },
  });
}

/** `get` and `getByName` hand out counted stubs; ids (`idFromName`, ...) are made locally and not counted. */
function namespace(ns: object, later: Later): object {
  const stubOf = (real: unknown) => stub(real, later);
  return counted(ns, {
    results: { get: stubOf, getByName: stubOf, jurisdiction: (sub) => namespace(sub as object, later) },
  });
}

/**
 * A stub lives for a request or less: its proxy is made per stub; every method call (RPC or fetch) is one round trip.
 */
function stub(real: unknown, later: Later): unknown {
  if (typeof real !== "object" || real === null) return real;
  return new Proxy(real, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key);
      if (typeof value !== "function" || key === "then") return value;
      const fn = value as (...args: unknown[]) => unknown;
      if (typeof key !== "string") return fn.bind(target);
      return (...args: unknown[]) => {
        countRoundTrip(DURABLE_OBJECT);
        return later(() => Reflect.apply(fn, target, args));
      };
    },
  });
}

/** Every bucket method is a round trip except `resumeMultipartUpload`, whose upload's methods are. */
function r2Bucket(bucket: object): object {
  const upload = (u: unknown) =>
    typeof u === "object" && u !== null ? counted(u, { kind: R2, counted: ["uploadPart", "abort", "complete"] }) : u;
  return counted(bucket, {
    kind: R2,
    counted: ["head", "get", "put", "list", "delete", "createMultipartUpload"],
    results: { createMultipartUpload: (p) => (p as Promise<unknown>).then(upload), resumeMultipartUpload: upload },
  });
}
