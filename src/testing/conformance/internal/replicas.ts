/**
 * The operator under test as a sharded deployment: several processes of it, each holding its
 * share of the virtual shards, checked as one operator. It starts once every shard is held; it is
 * idle when every replica is and no shard is without a holder; a kill kills every replica (each
 * comes back under its identity, and takes its shards back at once).
 */
import type { MetricDefinition, MetricLabels } from "../../../metrics/index.ts";
import { ConformanceError } from "../errors.ts";
import type { OperatorProcess } from "./operator-process.ts";
import { poll } from "./poll.ts";
import type { ReconcileOutcome, RunnerState } from "./protocol.ts";

/** What checks use of the operator under test: one process, or {@link OperatorReplicas}. */
export type OperatorUnderTest = Pick<
  OperatorProcess,
  "running" | "logTail" | "start" | "stop" | "kill" | "reconcileAll" | "state" | "reconciles" | "metric"
>;

/** How long the replicas may take, once started, to hold every shard between them. */
const coverTimeoutMs = 90_000;

/** The replicas of a sharded operator, as one operator under test. */
export class OperatorReplicas implements OperatorUnderTest {
  readonly #replicas: readonly OperatorProcess[];
  readonly #shards: number;

  /** `replicas` share `shards` virtual shards. */
  constructor(replicas: readonly OperatorProcess[], shards: number) {
    this.#replicas = replicas;
    this.#shards = shards;
  }

  /** True while every replica runs. */
  get running(): boolean {
    return this.#replicas.every((r) => r.running);
  }

  /** The last lines each replica logged, marked with its number. */
  logTail(lines = 40): string[] {
    const each = Math.ceil(lines / this.#replicas.length);
    return this.#replicas.flatMap((r, i) => r.logTail(each).map((line) => `[replica ${i}] ${line}`));
  }

  /** Starts the replicas not running, and resolves once every shard is held by one of them. */
  async start(): Promise<void> {
    await Promise.all(this.#replicas.map((r) => r.start()));
    const covered = await poll(
      async () => ((await this.state()).shards.length === this.#shards ? true : undefined),
      coverTimeoutMs,
    );
    if (!covered) {
      const held = (await this.state()).shards;
      throw new ConformanceError(
        `the ${this.#replicas.length} replicas held ${held.length} of ${this.#shards} shards after ${coverTimeoutMs / 1000} s (${held.join(",")}):\n${this.logTail(30).join("\n")}`,
      );
    }
  }

  async stop(): Promise<void> {
    await Promise.all(this.#replicas.map((r) => r.stop()));
  }

  /** Kills every replica at once (SIGKILL). */
  async kill(): Promise<void> {
    await Promise.all(this.#replicas.map((r) => r.kill()));
  }

  async reconcileAll(): Promise<number> {
    const counts = await Promise.all(this.#replicas.map((r) => r.reconcileAll()));
    return counts.reduce((sum, n) => sum + n, 0);
  }

  /** The replicas' states added up: idle when each is, and every shard has a holder. */
  async state(): Promise<RunnerState> {
    const states = await Promise.all(this.#replicas.map((r) => r.state()));
    const shards = [...new Set(states.flatMap((s) => s.shards))].sort((a, b) => a - b);
    const sum = (field: "queued" | "active" | "reconciles") =>
      states.reduce((total, s) => total + s[field], 0);
    const idle = states.every((s) => s.idle) && shards.length === this.#shards;
    return { idle, queued: sum("queued"), active: sum("active"), reconciles: sum("reconciles"), shards };
  }

  /** Every replica's last reconciles, oldest first (a key moves between replicas with its shard). */
  async reconciles(): Promise<ReconcileOutcome[]> {
    const each = await Promise.all(this.#replicas.map((r) => r.reconciles()));
    return each.flat().sort((a, b) => a.endedAt - b.endedAt);
  }

  /** A metric summed over the replicas. */
  async metric<M extends MetricDefinition>(metric: M, labels: MetricLabels<M> = {}): Promise<number> {
    const values = await Promise.all(this.#replicas.map((r) => r.metric(metric, labels)));
    return values.reduce((sum, n) => sum + n, 0);
  }
}
