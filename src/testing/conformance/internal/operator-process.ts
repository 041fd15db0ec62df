/**
 * The operator under test as a child process (see `internal/runner.ts`): start it and wait until its caches
 * synced, ask it to reconcile everything or whether it is idle, read its metrics, stop it
 * gracefully or SIGKILL it, in a temporary directory removed when it exits. Its stderr (the operator's logs) is kept as a tail for failure reports.
 */
import { type ChildProcess, fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { systemClock } from "../../../clock/index.ts";
import type { MetricDefinition, MetricLabels } from "../../../metrics/index.ts";
import { scrapeMetric } from "../../metrics.ts";
import { ConformanceError } from "../errors.ts";
import {
  type ReconcileOutcome,
  RUNNER_ENV,
  type RunnerMessage,
  type RunnerRequest,
  type RunnerSettings,
  type RunnerState,
} from "./protocol.ts";
import { type RunnerLaunch, tsxLaunch } from "./runner-bundle.ts";

const startTimeoutMs = 90_000;
const tailLines = 300;

type Reply = Extract<RunnerMessage, { type: "reply" }>;

const levels: Record<number, string> = {
  10: "trace",
  20: "debug",
  30: "info",
  40: "warn",
  50: "error",
  60: "fatal",
};

/** A pino JSON line as one short line: level, object, message and error message. */
function compact(line: string): string {
  if (!line.startsWith("{")) return line;
  try {
    const entry = JSON.parse(line) as {
      level?: number;
      msg?: string;
      namespace?: string;
      name?: string;
      controller?: string;
      err?: { message?: string };
    };
    const where = entry.controller && entry.name ? ` ${entry.namespace ?? ""}/${entry.name}` : "";
    const err = entry.err?.message ? `: ${entry.err.message}` : "";
    const text = `${levels[entry.level ?? 30] ?? entry.level}${where} ${entry.msg ?? ""}${err}`;
    return text.length > 300 ? `${text.slice(0, 297)}...` : text;
  } catch {
    return line;
  }
}

/** A runner process and whether it loaded the operator (false: it exited first). */
interface Forked {
  child: ChildProcess;
  loaded: Promise<boolean>;
}

/** True until the process exited. */
const alive = (child: ChildProcess): boolean => child.exitCode === null && child.signalCode === null;

/** The operator under test, run as a process of its own. */
export class OperatorProcess {
  readonly #settings: RunnerSettings;
  readonly #nodeArgs: readonly string[];
  readonly #tail: string[] = [];
  readonly #pending = new Map<number, (reply: Reply) => void>();
  readonly #forkAhead: boolean;
  readonly #launch: RunnerLaunch;
  #child: ChildProcess | undefined;
  /** The next process, forked ahead and loaded, waiting for `start` (with `forkAhead`). */
  #next: Forked | undefined;
  #exited: Promise<void> = Promise.resolve();
  #nextId = 1;
  #metricsPort = 0;
  #starts = 0;

  /**
   * `forkAhead`: once the process is ready, fork the next one and let it load the operator, so that
   * a start after a kill takes the time of a cache sync, not of a Node process loading TypeScript
   * (2 s of 2.3 s idle, 7 s of 9 s on a loaded 2-core machine; measured 2026-11-27). A graceful
   * {@link stop} ends it too, unless a restart follows. `launch`: the script it runs (see
   * `runner-bundle.ts`); default the runner under tsx.
   */
  constructor(
    settings: RunnerSettings,
    nodeArgs: readonly string[] = [],
    { forkAhead = false, launch = tsxLaunch() }: { forkAhead?: boolean; launch?: RunnerLaunch } = {},
  ) {
    this.#settings = settings;
    this.#nodeArgs = nodeArgs;
    this.#forkAhead = forkAhead;
    this.#launch = launch;
  }

  /** True while the process runs. */
  get running(): boolean {
    return this.#child !== undefined;
  }

  /** How many times the process was started. */
  get starts(): number {
    return this.#starts;
  }

  /** The last lines the operator logged (stderr), oldest first. */
  logTail(lines = 40): string[] {
    return this.#tail.slice(-lines);
  }

  /** Starts the process and resolves once its caches synced; rejects with its log tail if it fails. */
  async start(): Promise<void> {
    if (this.#child) return;
    const next = this.#next;
    this.#next = undefined;
    const { child, loaded } = next && alive(next.child) ? next : this.#fork();
    this.#child = child;
    this.#starts++;
    this.#exited = new Promise((resolve) =>
      child.once("exit", (code, signal) => {
        if (this.#child === child) this.#child = undefined;
        this.#log(`[kit] operator process exited (${signal ?? `code ${code}`})`);
        for (const done of this.#pending.values()) done({ type: "reply", id: 0, enqueued: 0 });
        this.#pending.clear();
        resolve();
      }),
    );
    const ready = this.#ready(child);
    // It takes `start` once listening for it: a message sent before that is lost.
    if (await loaded) child.send({ id: this.#nextId++, type: "start" } satisfies RunnerRequest, () => {});
    this.#metricsPort = await ready;
    if (this.#forkAhead) this.#next = this.#fork();
  }

  /** Forks the process ahead, to load the operator while the caller does something else; {@link start} starts it. */
  preload(): void {
    if (!this.#child && !this.#next) this.#next = this.#fork();
  }

  /** Forks a runner process, which loads the operator and waits for `start`. */
  #fork(): Forked {
    // Not a test-runner child; and a TypeScript loader registered in this process is not in that one.
    const { NODE_TEST_CONTEXT: _, KUBELOOP_TS_LOADER: __, ...env } = process.env;
    // A temporary directory of its own, removed once it exits: a killed process cannot remove what
    // it wrote there (its webhook's private key, for one).
    const scratch = mkdtempSync(join(tmpdir(), "kubeloop-verify-operator-"));
    const child = fork(this.#launch.script, [], {
      execArgv: [...this.#launch.execArgv, ...this.#nodeArgs],
      env: { ...env, TMPDIR: scratch, [RUNNER_ENV]: JSON.stringify(this.#settings) },
      stdio: ["ignore", "ignore", "pipe", "ipc"],
    });
    child.once("exit", () => rmSync(scratch, { recursive: true, force: true }));
    this.#collect(child);
    const loaded = new Promise<boolean>((resolve) => {
      child.on("message", (raw) => {
        if ((raw as RunnerMessage).type === "loaded") resolve(true);
      });
      child.once("exit", () => resolve(false));
    });
    return { child, loaded };
  }

  /** Ends the process forked ahead, if any. */
  async #dropNext(): Promise<void> {
    const next = this.#next?.child;
    this.#next = undefined;
    if (!next || !alive(next)) return;
    const gone = new Promise((resolve) => next.once("exit", resolve));
    next.kill("SIGKILL");
    await gone;
  }

  /**
   * Stops the process gracefully (SIGKILL after 20 s), and ends the one forked ahead unless
   * `restart` says a {@link start} follows.
   */
  async stop({ restart = false } = {}): Promise<void> {
    if (!restart) await this.#dropNext();
    const child = this.#child;
    if (!child) return;
    child.send({ id: this.#nextId++, type: "stop" } satisfies RunnerRequest, () => {});
    const timer = systemClock.setTimer(20_000, () => child.kill("SIGKILL"));
    await this.#exited;
    timer.cancel();
  }

  /** Kills the process at once (SIGKILL), as a node failure or OOM kill would, and waits for it to be gone. */
  async kill(): Promise<void> {
    const child = this.#child;
    if (!child) return;
    child.kill("SIGKILL");
    await this.#exited;
  }

  /** Queues every object of every controller for a reconcile; returns how many keys were queued. */
  async reconcileAll(): Promise<number> {
    const reply = await this.#request("reconcile-all");
    return "enqueued" in reply ? reply.enqueued : 0;
  }

  /** The controllers' state: idle or not, and how many reconciles ran so far. */
  async state(): Promise<RunnerState> {
    const reply = await this.#request("state");
    if ("state" in reply) return reply.state;
    return { idle: false, queued: 0, active: 0, reconciles: 0, shards: [] };
  }

  /**
   * The controllers' last reconciles (the newest 50 of each controller, since this process
   * started), oldest first; none once the process exited.
   */
  async reconciles(): Promise<ReconcileOutcome[]> {
    const reply = await this.#request("reconciles");
    return "reconciles" in reply ? reply.reconciles : [];
  }

  /** The sum of a metric's series whose labels include `labels`, from the operator's `/metrics`. */
  async metric<M extends MetricDefinition>(metric: M, labels: MetricLabels<M> = {}): Promise<number> {
    if (!this.#child) return 0;
    return scrapeMetric(`http://127.0.0.1:${this.#metricsPort}/metrics`, metric.name, labels);
  }

  #request(type: "reconcile-all" | "state" | "reconciles"): Promise<Reply> {
    const child = this.#child;
    if (!child) return Promise.reject(new ConformanceError("the operator process is not running"));
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, resolve);
      child.send({ id, type } satisfies RunnerRequest, (err) => {
        if (!err) return;
        this.#pending.delete(id);
        reject(err);
      });
    });
  }

  #collect(child: ChildProcess): void {
    let partial = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      const lines = (partial + chunk.toString("utf8")).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) if (line) this.#log(line);
    });
    child.on("message", (raw) => {
      const message = raw as RunnerMessage;
      if (message.type !== "reply") return;
      this.#pending.get(message.id)?.(message);
      this.#pending.delete(message.id);
    });
  }

  #log(line: string): void {
    // Idle watches reconnecting on the run's short inactivity timeout are the kit's doing, not news.
    if (line.includes("the watch received nothing for")) return;
    this.#tail.push(compact(line));
    if (this.#tail.length > tailLines) this.#tail.shift();
  }

  #ready(child: ChildProcess): Promise<number> {
    return new Promise((resolve, reject) => {
      const fail = (why: string) => {
        cleanup();
        child.kill("SIGKILL");
        reject(new ConformanceError(`the operator process ${why}:\n${this.logTail(30).join("\n")}`));
      };
      const onMessage = (raw: unknown) => {
        const message = raw as RunnerMessage;
        if (message.type === "ready") {
          cleanup();
          resolve(message.metricsPort);
        } else if (message.type === "failed") fail(`failed to start: ${message.error}`);
      };
      const onExit = (code: number | null, signal: string | null) =>
        fail(`exited before its caches synced (${signal ?? `code ${code}`})`);
      const timer = systemClock.setTimer(startTimeoutMs, () =>
        fail(`did not sync its caches within ${startTimeoutMs / 1000} s`),
      );
      const cleanup = () => {
        timer.cancel();
        child.off("message", onMessage);
        child.off("exit", onExit);
      };
      child.on("message", onMessage);
      child.once("exit", onExit);
    });
  }
}
