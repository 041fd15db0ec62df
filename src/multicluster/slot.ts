/**
 * One cluster a provider offers, for as long as it offers it: probed at an interval, engaged while
 * it answers, disengaged after repeated failed probes (401/403: "unauthorized"; anything else:
 * "unreachable") and engaged again once it answers, disengaged for good when its provider drops
 * it or the fleet stops.
 */
import type { Logger } from "pino";
import { Client, type ClusterConnection, ForbiddenError, UnauthorizedError } from "../client/index.ts";
import type { LiveCluster } from "../endpoints/index.ts";
import { type EngageDeps, Engagement } from "./engaged.ts";
import type { FleetMetrics } from "./metrics.ts";

/** How a fleet checks that an engaged cluster still answers and accepts its credentials. */
export interface ProbeOptions {
  /** Between probes. Default 5 s. */
  intervalMs?: number;
  /** Consecutive failed probes that disengage a cluster. Default 3. */
  failureThreshold?: number;
  /** One probe's time limit. Default 5 s. */
  timeoutMs?: number;
}

/** Probes a cluster: resolves when it answers, rejects with the error otherwise. */
export type Probe = (client: Client, timeoutMs: number) => Promise<unknown>;

/** Asks for the API's discovery document, which every authenticated caller may read. */
export const discoveryProbe: Probe = (client, timeoutMs) =>
  client.request({
    method: "GET",
    path: "/api",
    verb: "get",
    timeoutMs,
    signal: AbortSignal.timeout(timeoutMs),
  });

/** Why a probe failed: "unauthorized" for a 401 or 403, "unreachable" otherwise. */
export function probeFailure(err: unknown): "unauthorized" | "unreachable" {
  return err instanceof UnauthorizedError || err instanceof ForbiddenError ? "unauthorized" : "unreachable";
}

/** What a slot needs from its fleet. */
export interface SlotDeps extends EngageDeps {
  probe: Required<ProbeOptions>;
  probeWith: Probe;
  metrics: FleetMetrics;
}

/** What the fleet shows of one cluster: its name, whether it is engaged and why, synced, informers. */
export type ClusterState = Omit<LiveCluster, "manager">;

/** One offered cluster's probe loop and engagement. */
export class ClusterSlot {
  readonly name: string;
  readonly #connection: ClusterConnection;
  readonly #deps: SlotDeps;
  readonly #logger: Logger;
  readonly #stop = new AbortController();
  #engagement: Engagement | undefined;
  #reason = "discovered";
  #everEngaged = false;
  #running: Promise<void> = Promise.resolve();
  /** Why its writes were fenced for good ({@link fence}); undefined while they are not. */
  #fenced: string | undefined;

  constructor(name: string, connection: ClusterConnection, deps: SlotDeps) {
    this.name = name;
    this.#connection = connection;
    this.#deps = deps;
    this.#logger = deps.logger.child({ cluster: name });
  }

  /** Starts probing and engaging; {@link stop} ends it. */
  start(): void {
    this.#running = this.#run();
  }

  /** Disengages the cluster for `reason` and ends the loop; resolves once it is disengaged. */
  async stop(reason: string): Promise<void> {
    this.#stop.abort(reason);
    await this.#running;
  }

  /** Fences its writes at once and for good, those of an engagement still starting too; {@link stop} follows. */
  fence(reason: string): void {
    this.#fenced = reason;
    this.#engagement?.fence(reason);
  }

  /** What the fleet shows of this cluster. */
  state(): ClusterState {
    const e = this.#engagement;
    return {
      name: this.name,
      engaged: e !== undefined,
      reason: this.#reason,
      synced: e?.ready ?? false,
      informers: e?.informers ?? 0,
    };
  }

  /** What the live page shows of this cluster: its state and, while engaged, what its manager runs. */
  async live(): Promise<LiveCluster> {
    const e = this.#engagement;
    return { ...this.state(), ...(e && { manager: await e.live() }) };
  }

  async #run(): Promise<void> {
    const probeClient = new Client(this.#connection, {
      fieldManager: this.#deps.name,
      clock: this.#deps.clock,
    });
    const signal = this.#stop.signal;
    let failures = 0;
    try {
      while (!signal.aborted) {
        const failure = await this.#probe(probeClient);
        if (failure === undefined) failures = 0;
        if (failure === undefined && !this.#engagement) await this.#engage();
        else if (failure !== undefined && ++failures >= this.#deps.probe.failureThreshold)
          await this.#unhealthy(failure);
        await this.#deps.clock.sleep(this.#deps.probe.intervalMs, signal).catch(() => {});
      }
    } finally {
      await this.#disengage(String(signal.reason));
      await probeClient.close();
    }
  }

  /** Undefined when the cluster answered, else why not. */
  async #probe(client: Client): Promise<string | undefined> {
    try {
      await this.#deps.probeWith(client, this.#deps.probe.timeoutMs);
      return undefined;
    } catch (err) {
      this.#logger.debug({ err }, "cluster probe failed");
      return probeFailure(err);
    }
  }

  /** The cluster failed its probes `failureThreshold` times in a row: disengaged, or told why not engaged. */
  async #unhealthy(reason: string): Promise<void> {
    if (this.#engagement) return this.#disengage(reason);
    if (reason === this.#reason) return;
    this.#reason = reason;
    this.#logger.warn({ reason }, "cluster not engaged: it fails its probes");
  }

  async #engage(): Promise<void> {
    const reason = this.#everEngaged ? "recovered" : "discovered";
    try {
      this.#engagement = await Engagement.start(this.name, this.#connection, this.#deps, (err) =>
        this.#failed(err),
      );
    } catch (err) {
      this.#logger.error({ err }, "cluster not engaged: its controllers could not be set up");
      this.#reason = "setup failed";
      this.#deps.metrics.engagementFailed(this.#reason);
      return;
    }
    if (this.#fenced !== undefined) this.#engagement.fence(this.#fenced);
    this.#reason = reason;
    this.#everEngaged = true;
    this.#deps.metrics.engaged(reason);
    this.#logger.info({ reason }, "cluster engaged");
  }

  /** Its manager failed (caches did not sync): disengaged; the next answered probe engages it again. */
  #failed(err: unknown): void {
    this.#logger.error({ err }, "cluster's manager failed");
    void this.#disengage("manager failed");
  }

  async #disengage(reason: string): Promise<void> {
    const engagement = this.#engagement;
    if (!engagement) return;
    this.#engagement = undefined;
    this.#reason = reason;
    await engagement.stop(reason);
    this.#deps.metrics.disengaged(reason);
    this.#logger.warn({ reason }, "cluster disengaged: writes fenced, reconciles drained, informers stopped");
  }
}
