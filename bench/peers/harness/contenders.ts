/**
 * The contenders and how each is started as its own OS process: the command line, its progress
 * lines (`BENCH ready`, `BENCH first-reconcile`, `BENCH all-reconciled`, timestamped as they
 * arrive), its CPU time (utime + stime from /proc/<pid>/stat) and peak RSS (VmHWM from
 * /proc/<pid>/status). Output goes to a log file per process.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { peersDir, repoRoot } from "./paths.ts";

export type ContenderName = "kubeloop" | "controller-runtime" | "client-node" | "dot-i" | "floor";
export const contenderNames: ContenderName[] = [
  "kubeloop",
  "controller-runtime",
  "client-node",
  "dot-i",
  "floor",
];

/** What each contender is, for the report. */
export const contenderLabels: Record<ContenderName, string> = {
  kubeloop: "kubeloop (this repo)",
  "controller-runtime": "controller-runtime (Go)",
  "client-node": "client-node 1.4 informers",
  "dot-i": "@dot-i/k8s-operator",
  floor: "floor (raw requests)",
};

export interface LaunchOptions {
  kubeconfig: string;
  env: Record<string, string>;
  logFile: string;
  /** Node contenders: write a CPU profile into this directory on exit. */
  cpuProfileDir?: string;
  /** The `node` executable of the Node contenders. */
  node: string;
  /** Path of the built controller-runtime binary. */
  goBinary: string;
  /** The compiled entry of each TypeScript contender (`buildContenders`). */
  built: Partial<Record<ContenderName, string>>;
}

/** The JavaScript peers, run as they are. */
const javaScriptEntry: Partial<Record<ContenderName, string>> = {
  "client-node": "client-node/operator.mjs",
  "dot-i": "dot-i/operator.mjs",
};

/**
 * The command line of a contender: the Go binary, or plain `node` (`opts.node`) on JavaScript — the peers' own,
 * or the TypeScript contenders compiled ahead of time with kubeloop from dist/ (harness/build.ts).
 */
export function commandOf(name: ContenderName, opts: LaunchOptions): { cmd: string; args: string[] } {
  if (name === "controller-runtime") return { cmd: opts.goBinary, args: [] };
  const prof = opts.cpuProfileDir ? ["--cpu-prof", `--cpu-prof-dir=${opts.cpuProfileDir}`] : [];
  const peer = javaScriptEntry[name];
  const entry = peer ? join(peersDir, peer) : opts.built[name];
  if (!entry) throw new Error(`${name} was not compiled: run buildContenders first`);
  return { cmd: opts.node, args: [...prof, entry] };
}

/** A running contender process. */
export class ContenderProcess {
  readonly name: ContenderName;
  readonly child: ChildProcess;
  readonly startedAt = performance.now();
  readonly #markers = new Map<string, number>();
  readonly #waiters: { marker: string; resolve: (at: number) => void }[] = [];
  #exited = false;
  readonly exited: Promise<number | null>;

  constructor(name: ContenderName, opts: LaunchOptions) {
    this.name = name;
    const { cmd, args } = commandOf(name, opts);
    const log = createWriteStream(opts.logFile, { flags: "a" });
    this.child = spawn(cmd, args, {
      cwd: repoRoot,
      env: { ...process.env, ...opts.env, KUBECONFIG: opts.kubeconfig, LOG_LEVEL: "info" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.exited = new Promise((resolve) =>
      this.child.once("exit", (code) => {
        this.#exited = true;
        resolve(code);
      }),
    );
    this.child.stderr?.pipe(log);
    createInterface({ input: this.child.stdout as NodeJS.ReadableStream }).on("line", (line) => {
      const at = performance.now();
      if (line.startsWith("BENCH ")) {
        const marker = line.slice(6).trim();
        if (!this.#markers.has(marker)) this.#markers.set(marker, at);
        for (const w of this.#waiters.filter((x) => x.marker === marker)) w.resolve(at);
      }
      log.write(`${line}\n`);
    });
  }

  get pid(): number {
    return this.child.pid ?? 0;
  }

  /** When `marker` was printed (performance.now()); waits for it up to `timeoutMs`. */
  marker(marker: string, timeoutMs: number): Promise<number> {
    const seen = this.#markers.get(marker);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${this.name}: no "BENCH ${marker}" within ${timeoutMs / 1000} s`)),
        timeoutMs,
      );
      void this.exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`${this.name} exited (${code}) before "BENCH ${marker}"`));
      });
      this.#waiters.push({
        marker,
        resolve: (at) => {
          clearTimeout(timer);
          resolve(at);
        },
      });
    });
  }

  /** CPU seconds used so far (user + system, all threads). */
  cpuSeconds(): number {
    const stat = readFileSync(`/proc/${this.pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // fields[0] is field 3 (state); utime and stime are fields 14 and 15.
    return (Number(fields[11]) + Number(fields[12])) / clockTicks;
  }

  /** Peak resident set size so far, MiB. */
  peakRssMiB(): number {
    const status = readFileSync(`/proc/${this.pid}/status`, "utf8");
    return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
  }

  /** Current resident set size, MiB. */
  rssMiB(): number {
    const status = readFileSync(`/proc/${this.pid}/status`, "utf8");
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
  }

  /** SIGTERM, then SIGKILL after `graceMs`. */
  async stop(graceMs = 15_000): Promise<void> {
    if (this.#exited) return;
    this.child.kill("SIGTERM");
    const timer = setTimeout(() => this.child.kill("SIGKILL"), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}

const clockTicks = 100; // sysconf(_SC_CLK_TCK) on Linux
