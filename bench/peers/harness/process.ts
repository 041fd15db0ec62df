/**
 * A benchmarked program as its own OS process: its progress lines (`BENCH <marker>` on stdout,
 * timestamped as they arrive), its CPU time (utime + stime from /proc/<pid>/stat) and peak RSS
 * (VmHWM from /proc/<pid>/status). Its output goes to a log file.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { repoRoot } from "./paths.ts";

/** How a {@link BenchProcess} is started besides its command line. */
export interface ProcessOptions {
  /** Added to this process's environment. */
  env: Record<string, string>;
  /** Where its stdout and stderr go (appended). */
  logFile: string;
}

/** A running benchmarked process. */
export class BenchProcess {
  readonly name: string;
  readonly child: ChildProcess;
  readonly startedAt = performance.now();
  readonly #markers = new Map<string, number>();
  readonly #waiters: { marker: string; resolve: (at: number) => void }[] = [];
  #exited = false;
  readonly exited: Promise<number | null>;

  /** Starts `command` in the repository's root. */
  constructor(name: string, command: { cmd: string; args: string[] }, opts: ProcessOptions) {
    this.name = name;
    const { cmd, args } = command;
    const log = createWriteStream(opts.logFile, { flags: "a" });
    this.child = spawn(cmd, args, {
      cwd: repoRoot,
      env: { ...process.env, ...opts.env },
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
