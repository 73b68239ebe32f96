/**
 * Process facts for the report: the machine, free loopback ports, and the
 * resident memory of a process tree (Linux /proc; null elsewhere).
 */
import fs from "node:fs";
import net from "node:net";
import os from "node:os";

export function machine() {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model?.trim() ?? "unknown",
    cores: cpus.length,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    loadAverage: load(),
  };
}

/** The 1-minute load average: other work on the machine makes every number noisier. */
export const load = () => Math.round(os.loadavg()[0] * 100) / 100;

/** A port that was free on 127.0.0.1 a moment ago. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function status(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/status`, "utf8");
  } catch {
    return null;
  }
}

const kib = (text, field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? 0);

/** Pids of `root` and all its descendants, from /proc (empty when /proc is missing). */
export function descendants(root) {
  let entries;
  try {
    entries = fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d));
  } catch {
    return [];
  }
  const children = new Map();
  for (const pid of entries) {
    const text = status(pid);
    const ppid = text && /^PPid:\s+(\d+)/m.exec(text)?.[1];
    if (!ppid) continue;
    if (!children.has(ppid)) children.set(ppid, []);
    children.get(ppid).push(pid);
  }
  const out = [String(root)];
  for (let i = 0; i < out.length; i++) out.push(...(children.get(out[i]) ?? []));
  return out;
}

/**
 * Resident and peak resident memory (MiB) of the processes named `name`
 * under `root` (or of `root` itself when name is omitted).
 */
export function memoryOf(root, name) {
  const each = memoryEach(root, name);
  if (each.length === 0) return null;
  const sum = (key) => each.reduce((total, p) => total + p[key], 0);
  return { rssMiB: Math.round(sum("rssKiB") / 1024), peakMiB: Math.round(sum("peakKiB") / 1024), processes: each.length };
}

/** The same per process, oldest first: {pid, rssKiB, peakKiB}. */
export function memoryEach(root, name) {
  const pids = name ? descendants(root) : [String(root)];
  const out = [];
  for (const pid of pids) {
    const text = status(pid);
    if (!text) continue;
    if (name && /^Name:\s+(\S+)/m.exec(text)?.[1] !== name) continue;
    out.push({ pid, rssKiB: kib(text, "VmRSS"), peakKiB: kib(text, "VmHWM") });
  }
  return out;
}
