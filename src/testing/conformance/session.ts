/**
 * A conformance session: the operator under test running as its own process, behind a
 * fault-injecting proxy, against a control plane — the kit's own (started with
 * `--watch-cache=false`, so that an etcd compaction reaches watches as 410 Expired), one the caller
 * started, or any cluster from a kubeconfig. The kit itself talks to the apiserver directly, so
 * every request the proxy sees is the operator's. Checks run one after the other on a session,
 * each in namespaces of its own. The operator serves the admission webhooks it declares, admitting
 * only the session's namespaces, through configurations named for the session and deleted when it
 * closes; its conversions are served by the kit's own process (the CRD's one `clientConfig` for the
 * cluster, up while the operator crashes or restarts), or by the test run on the run's cluster.
 */
import { randomBytes } from "node:crypto";
import { Namespace } from "../../api/index.ts";
import { Client, loadKubeconfig, NotFoundError } from "../../client/index.ts";
import { systemClock } from "../../clock/index.ts";
import { type Cluster, startCluster } from "../../cluster/index.ts";
import { defaultElectionTimings } from "../../election/index.ts";
import { installCrds } from "../../operator/index.ts";
import type { ShardKey } from "../../sharding/index.ts";
import { CONVERSION_HOST_ENV, type ConversionHost, serveConversions } from "../conversions.ts";
import { type FaultProxy, type RequestRecord, startProxy, upstreamFromKubeconfig } from "../proxy/index.ts";
import { seededRandom } from "../proxy/match.ts";
import { deleteWebhookConfigurations, sessionWebhookServing } from "../webhooks.ts";
import { OperatorProcess } from "./internal/operator-process.ts";
import { poll } from "./internal/poll.ts";
import type { RunnerSettings } from "./internal/protocol.ts";
import { OperatorReplicas, type OperatorUnderTest } from "./internal/replicas.ts";
import { type RunnerLaunch, runnerLaunch } from "./internal/runner-bundle.ts";
import { resolveSubject, type Subject } from "./internal/subject.ts";
import { discard, type Snapshot } from "./internal/world.ts";
import type { ConformanceSpec } from "./spec.ts";

/** The field manager of the kit's own writes (fixtures, tampering, status wipes). */
export const KIT_FIELD_MANAGER = "kubeloop-conformance";

/**
 * The label of the namespaces a session creates for its checks, valued with the session's id: the
 * operator's webhooks admit only the namespaces of their own session, so that sessions and tests
 * sharing a cluster never call each other's.
 */
export const SESSION_LABEL = "kubeloop.dev/conformance-session";

/** Where a session runs. */
export interface SessionOptions {
  /**
   * A local cluster to use (not stopped at the end). Its apiserver should run with
   * `--watch-cache=false`, or watch-expiry cannot force a 410. Default: the kit starts its own.
   */
  cluster?: Cluster;
  /**
   * Use the cluster of this kubeconfig (its current context must authenticate with a client
   * certificate). The kit then cannot restart the apiserver or compact etcd: transient-failures
   * simulates the outage at the proxy and watch-expiry answers watches with 410 there.
   */
  kubeconfig?: string;
  /** Progress lines. Default: none. */
  report?: (line: string) => void;
  /**
   * Check a sharded deployment instead of one process: `replicas` processes of the operator
   * (default 3) share `shards` virtual shards (default 16) placed by `key` (default "namespace"),
   * their Leases in a namespace of the kit's. Every check then runs against all of them (a kill
   * kills every replica); leadership-fenced, which needs one leader, is skipped.
   */
  sharding?: { replicas?: number; shards?: number; key?: ShardKey };
}

/** What checks run with. */
export interface ConformanceSession {
  readonly subject: Subject;
  /** A client of the kit's own, straight to the apiserver (admin). */
  readonly client: Client;
  /** The proxy between the operator and the apiserver. */
  readonly proxy: FaultProxy;
  /** The operator process, or the replicas of a sharded deployment. */
  readonly operator: OperatorUnderTest;
  /** Whether the operator runs sharded across replicas ({@link SessionOptions.sharding}). */
  readonly sharded: boolean;
  /** The member cluster the checks run on, when the operator runs in a fleet (`openFleetSession`). */
  readonly member: string | undefined;
  /** The local cluster, when the kit can restart its apiserver and compact its etcd. */
  readonly cluster: Cluster | undefined;
  /**
   * Another process of the operator under test, not started yet: the session operator's settings
   * with `changes` over them. `direct` ones talk to the apiserver without the proxy, so that the
   * proxy's log holds only the other processes' requests. The caller stops it.
   */
  replica(changes: Partial<RunnerSettings>, direct?: boolean): OperatorProcess;
  /** The run's seeded random numbers in [0, 1). */
  random(): number;
  /** Reports progress. */
  log(line: string): void;
  /**
   * Creates a namespace for a check (`kl-<label>-<random>`, labelled {@link SESSION_LABEL}); deleted
   * when the session closes.
   */
  namespace(label: string): Promise<string>;
  /** Deletes a namespace now (without waiting). */
  dropNamespace(namespace: string): Promise<void>;
  /** The namespaces created and not dropped yet. */
  liveNamespaces(): string[];
  /** Waits (up to the repair deadline) until the namespaces dropped so far are gone, so that their deletion is no noise. */
  quiesce(): Promise<void>;
  /** The id of the last request the proxy saw: requests after it have greater ids. */
  marker(): number;
  /** The requests after `marker`, oldest first. */
  requestsSince(marker: number): RequestRecord[];
  /** The outputs of a clean run in a namespace of its own, kept for checks that compare shapes. */
  reference?: Snapshot;
  /**
   * Stops the operator and the proxy, deletes the namespaces and the webhook configurations, and
   * stops a cluster the kit started.
   */
  close(): Promise<void>;
}

async function connect(options: SessionOptions, report: (line: string) => void) {
  if (options.kubeconfig) {
    const proxy = await startProxy({
      upstream: upstreamFromKubeconfig(options.kubeconfig),
      historySize: 20_000,
    });
    return {
      cluster: undefined,
      owned: false,
      kubeconfig: options.kubeconfig,
      proxy,
      proxyConfig: proxy.kubeconfig(options.kubeconfig),
    };
  }
  const cluster = options.cluster ?? (await startCluster({ apiserverArgs: ["--watch-cache=false"], report }));
  const proxy = await startProxy({ cluster, historySize: 20_000 });
  return {
    cluster,
    owned: options.cluster === undefined,
    kubeconfig: cluster.kubeconfigPath,
    proxy,
    proxyConfig: proxy.kubeconfig(),
  };
}

/**
 * Opens a session: resolves the spec (loading the operator module), connects to a cluster,
 * installs the operator's CRDs, starts the proxy and the operator process.
 */
export async function openSession(
  spec: ConformanceSpec,
  options: SessionOptions = {},
): Promise<ConformanceSession> {
  const report = options.report ?? (() => {});
  const subject = await resolveSubject(spec);
  const link = await connect(options, report);
  const client = new Client(await loadKubeconfig({ kubeconfig: link.kubeconfig }), {
    qps: Number.POSITIVE_INFINITY,
    fieldManager: KIT_FIELD_MANAGER,
  });
  const id = randomBytes(4).toString("hex");
  const webhooks = sessionWebhookServing(`${subject.operator.name}-conformance-${id}`, SESSION_LABEL, id);
  const settings: RunnerSettings = {
    operator: subject.operatorPath,
    kubeconfig: link.proxyConfig,
    watchInactivityMs: subject.timings.watchInactivityMs,
    relistMs: subject.timings.relistMs,
    logLevel: spec.logLevel ?? "info",
    webhooks,
  };
  const launch = await runnerLaunch(subject.operatorPath, report);
  const leases = options.sharding ? await leaseNamespace(client) : undefined;
  const operator = leases
    ? replicas(settings, spec.nodeArgs, leases, options.sharding ?? {}, launch)
    : new OperatorProcess(settings, spec.nodeArgs, { forkAhead: true, launch });
  let conversions: ConversionHost | undefined;
  const target = { client, proxy: link.proxy, cluster: link.cluster, member: undefined };
  const shared = { spec, subject, id, report, operator, sharded: leases !== undefined };
  const session = sessionOn(target, shared, {
    replica: (changes, direct = false) =>
      new OperatorProcess(
        { ...settings, ...(direct ? { kubeconfig: link.kubeconfig } : {}), ...changes },
        spec.nodeArgs,
        { launch },
      ),
    async close() {
      // Not on a cluster of the kit's own, stopped below with everything in it.
      if (!link.owned) await session.discardAll();
      await operator.stop();
      await deleteWebhookConfigurations(client, webhooks.configurationName);
      await conversions?.stop();
      if (leases) await client.delete(Namespace, leases).catch(() => {});
      await link.proxy.stop();
      await client.close();
      if (link.owned) await link.cluster?.stop();
    },
  });
  try {
    await installCrds(client, subject.operator.kinds);
    if (link.owned || !process.env[CONVERSION_HOST_ENV])
      conversions = await serveConversions(client, [subject.operator]);
    await operator.start();
  } catch (err) {
    await session.close();
    throw err;
  }
  return session;
}

/** What a session's checks run against: a cluster (or a fleet's member), the kit's client of it, the operator's proxy to it. */
export interface Target {
  client: Client;
  proxy: FaultProxy;
  cluster: Cluster | undefined;
  member: string | undefined;
}

/** What the sessions of one operator process share. */
export interface Shared {
  spec: ConformanceSpec;
  subject: Subject;
  /** The id in the label of the session's namespaces. */
  id: string;
  report: (line: string) => void;
  operator: OperatorUnderTest;
  sharded: boolean;
}

/**
 * A session on `target`, with `discardAll`: deletes the namespaces left, while the operator still
 * runs so that its finalizers let them go, and waits until they are gone.
 */
export function sessionOn(
  target: Target,
  shared: Shared,
  own: Pick<ConformanceSession, "replica" | "close">,
): ConformanceSession & { discardAll(): Promise<void> } {
  const { client, proxy } = target;
  const { subject, operator } = shared;
  const namespaces = new Set<string>();
  const dropped = new Set<string>();
  const session: ConformanceSession & { discardAll(): Promise<void> } = {
    ...own,
    subject,
    client,
    proxy,
    operator,
    sharded: shared.sharded,
    cluster: target.cluster,
    member: target.member,
    random: seededRandom(shared.spec.seed ?? 1),
    log: (line) => shared.report(target.member ? `${target.member}: ${line}` : line),
    async namespace(label) {
      const name = `kl-${label}-${randomBytes(3).toString("hex")}`.slice(0, 63);
      const metadata = { name, labels: { [SESSION_LABEL]: shared.id } };
      await client.create(Namespace, { apiVersion: "v1", kind: "Namespace", metadata });
      namespaces.add(name);
      return name;
    },
    async dropNamespace(name) {
      await client.delete(Namespace, name).catch((err: unknown) => {
        if (!(err instanceof NotFoundError)) throw err;
      });
      namespaces.delete(name);
      dropped.add(name);
    },
    liveNamespaces: () => [...namespaces],
    async quiesce() {
      await poll(async () => {
        for (const name of dropped) {
          const gone = await client.get(Namespace, name).then(
            () => false,
            (err: unknown) => err instanceof NotFoundError,
          );
          if (gone) dropped.delete(name);
        }
        return dropped.size === 0 || undefined;
      }, subject.timings.repairMs);
    },
    marker: () => proxy.lastRequestId(),
    requestsSince: (marker) => proxy.requests(marker),
    async discardAll() {
      proxy.clear();
      for (const name of namespaces) await discard(session, name).catch(() => {});
      if (operator.running) await session.quiesce();
    },
  };
  return session;
}

/** A namespace for the shard Leases of a sharded deployment, deleted after the replicas stopped. */
async function leaseNamespace(client: Client): Promise<string> {
  const name = `kl-shards-${randomBytes(3).toString("hex")}`;
  await client.create(Namespace, { apiVersion: "v1", kind: "Namespace", metadata: { name } });
  return name;
}

/** The replicas of a sharded deployment, each `kit-replica-<i>` (the same identity after a restart). */
function replicas(
  settings: RunnerSettings,
  nodeArgs: readonly string[] | undefined,
  namespace: string,
  { replicas: count = 3, shards = 16, key = "namespace" }: NonNullable<SessionOptions["sharding"]>,
  launch: RunnerLaunch,
): OperatorReplicas {
  // The election timings a deployed operator has (controller-runtime's): shorter ones (6/4/1 s)
  // doubled the Lease traffic of 3 replicas × 16 shards and lost shards whenever the apiserver
  // answered a renewal in over 4 s (a CI run on a loaded machine).
  const timings = defaultElectionTimings;
  const processes = Array.from(
    { length: count },
    (_, i) =>
      new OperatorProcess(
        { ...settings, sharding: { key, shards, namespace, identity: `kit-replica-${i}`, ...timings } },
        nodeArgs,
        { launch },
      ),
  );
  return new OperatorReplicas(processes, shards);
}

/** Sleeps `ms` (a scenario's fault window, never a wait for an outcome). */
export const hold = (ms: number): Promise<void> => systemClock.sleep(ms);
