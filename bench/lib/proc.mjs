// @ts-check
// Memory and CPU of a process tree, read from /proc (Linux only), for benchmarks that run the Worker under
// `wrangler dev`: the tree below the wrangler process we spawned (wrangler's own Node process, the workerd processes it
// starts, esbuild if any). `sampleTree(rootPid)` is one reading; `treeSampler(rootPid, everyMs)` keeps the peaks.
import { readdirSync, readFileSync } from "node:fs";

const PAGE_BYTES = 4096; // x86-64 and arm64 Linux
const CLOCK_TICKS = 100; // USER_HZ: /proc's utime and stime unit

/** pid -> {pid, ppid, comm, rssBytes, cpuSeconds} for every process we may read. */
export function processTable() {
  const table = new Map();
  let names;
  try {
    names = readdirSync("/proc");
  } catch {
    return table; // not Linux
  }
  for (const name of names) {
    if (name.charCodeAt(0) < 48 || name.charCodeAt(0) > 57) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "latin1");
    } catch {
      continue; // exited meanwhile
    }
    // comm may hold spaces and parentheses: it runs from the first "(" to the last ")".
    const close = stat.lastIndexOf(")");
    const comm = stat.slice(stat.indexOf("(") + 1, close);
    const f = stat.slice(close + 2).split(" "); // f[0] is field 3 (state): field k is f[k - 3]
    table.set(Number(name), {
      pid: Number(name),
      ppid: Number(f[1]),
      comm,
      cpuSeconds: (Number(f[11]) + Number(f[12])) / CLOCK_TICKS,
      rssBytes: Number(f[21]) * PAGE_BYTES,
    });
  }
  return table;
}

/** `rootPid` and all its descendants, from one processTable(). */
export function descendants(table, rootPid) {
  const children = new Map();
  for (const p of table.values()) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const out = [];
  const queue = table.has(rootPid) ? [table.get(rootPid)] : [];
  while (queue.length) {
    const p = queue.shift();
    out.push(p);
    queue.push(...(children.get(p.pid) ?? []));
  }
  return out;
}

/** One reading of the tree: RSS and CPU summed over workerd processes and over the whole tree, plus each process. */
export function sampleTree(rootPid) {
  const tree = descendants(processTable(), rootPid);
  const workerd = tree.filter((p) => p.comm === "workerd");
  const sum = (list, field) => list.reduce((s, p) => s + p[field], 0);
  return {
    workerdRssBytes: sum(workerd, "rssBytes"),
    workerdCpuSeconds: sum(workerd, "cpuSeconds"),
    workerdCount: workerd.length,
    treeRssBytes: sum(tree, "rssBytes"),
    treeCpuSeconds: sum(tree, "cpuSeconds"),
    processes: tree.map(({ pid, comm, rssBytes, cpuSeconds }) => ({ pid, comm, rssBytes, cpuSeconds })),
  };
}

/**
 * Samples the tree below `rootPid` and this Node process every `everyMs` until stop(). Keeps the peaks (of the
 * workerd sum, of the whole tree, of our own RSS and heap) and the CPU seconds each process used between start and
 * the last sample; mark(name) snapshots CPU counters so a phase's CPU can be read back with cpuBetween(a, b).
 */
export function treeSampler(rootPid, everyMs = 500) {
  const peaks = {
    workerd_rss_bytes: 0,
    workerd_processes: 0,
    tree_rss_bytes: 0,
    node_rss_bytes: 0,
    node_heap_used_bytes: 0,
  };
  const marks = new Map();
  let samples = 0;
  let last = null;
  const take = () => {
    const s = sampleTree(rootPid);
    const own = process.memoryUsage();
    samples += 1;
    last = { at: Date.now(), ...s, ownCpuSeconds: process.cpuUsage().user / 1e6 + process.cpuUsage().system / 1e6 };
    peaks.workerd_rss_bytes = Math.max(peaks.workerd_rss_bytes, s.workerdRssBytes);
    peaks.workerd_processes = Math.max(peaks.workerd_processes, s.workerdCount);
    peaks.tree_rss_bytes = Math.max(peaks.tree_rss_bytes, s.treeRssBytes);
    peaks.node_rss_bytes = Math.max(peaks.node_rss_bytes, own.rss);
    peaks.node_heap_used_bytes = Math.max(peaks.node_heap_used_bytes, own.heapUsed);
    return last;
  };
  take();
  const timer = setInterval(take, everyMs);
  timer.unref();
  return {
    /** Takes a sample now and remembers its CPU counters under `name`. */
    mark(name) {
      const s = take();
      marks.set(name, s);
      return s;
    },
    /** CPU seconds used between two marks: per process (by pid and comm), workerd sum, tree sum, this process. */
    cpuBetween(from, to) {
      const a = marks.get(from);
      const b = marks.get(to);
      if (!a || !b) return null;
      const before = new Map(a.processes.map((p) => [p.pid, p.cpuSeconds]));
      const seconds = (b.at - a.at) / 1000;
      const round = (n) => Math.round(n * 100) / 100;
      return {
        wall_seconds: round(seconds),
        workerd_cpu_seconds: round(b.workerdCpuSeconds - a.workerdCpuSeconds),
        tree_cpu_seconds: round(b.treeCpuSeconds - a.treeCpuSeconds),
        harness_cpu_seconds: round(b.ownCpuSeconds - a.ownCpuSeconds),
        processes: b.processes.map((p) => ({
          pid: p.pid,
          comm: p.comm,
          cpu_seconds: round(p.cpuSeconds - (before.get(p.pid) ?? 0)),
        })),
      };
    },
    get peaks() {
      return { ...peaks, samples };
    },
    stop() {
      clearInterval(timer);
      take();
    },
  };
}
