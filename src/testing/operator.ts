/**
 * End-to-end tests of an operator, in-process, against a real cluster: {@link startOperator}
 * installs the operator's CRDs, builds its controllers on a manager, serves its webhooks and starts
 * it. The cluster is the one `kubeloop test` started for the whole
 * run (named by `KUBELOOP_TEST_KUBECONFIG`, which a user may also point at an existing cluster),
 * else a local control plane started for the caller alone.
 */
import type { Logger } from "pino";
import pino from "pino";
import { Client, loadKubeconfig } from "../client/index.ts";
import { type Cluster, startCluster } from "../cluster/index.ts";
import { Manager, type ManagerOptions } from "../manager/index.ts";
import { installCrds, type Operator } from "../operator/index.ts";
import { webhooksServedInTest } from "./conversions.ts";
import { UndeclaredKindsError } from "./errors.ts";
import { eventuallyWhile } from "./eventually.ts";
import { deleteWebhookConfigurations, testWebhookServing } from "./webhooks.ts";

/** The environment variable naming the kubeconfig of the cluster tests run against. */
export const TEST_KUBECONFIG_ENV = "KUBELOOP_TEST_KUBECONFIG";

/** Options of {@link startOperator}. */
export interface StartOperatorOptions {
  /** Kubeconfig of the cluster. Default `$KUBELOOP_TEST_KUBECONFIG`, else a local control plane started for this call. */
  kubeconfig?: string;
  /**
   * Manager options over the test defaults (no endpoints, no leader election, no client rate
   * limit, the operator's webhooks served as {@link testWebhookServing} says; `webhookServer` is
   * merged over that, `webhooks: []` serves none).
   */
  manager?: Partial<Omit<ManagerOptions, "name" | "client" | "config">>;
  /** How long the caches may take to sync. Default 60 s. */
  syncTimeoutMs?: number;
}

/** An operator running in this process, and an admin client of its cluster. */
export interface RunningOperator extends AsyncDisposable {
  /**
   * An admin client of the cluster, writing as field manager `kubeloop` (the operator's own client
   * is `manager.client`, writing as the operator's name).
   */
  readonly client: Client;
  readonly manager: Manager;
  /** Kubeconfig path of the cluster. */
  readonly kubeconfig: string;
  /**
   * Stops the operator and deletes its webhook configurations, then the local cluster if this call
   * started one; then rejects with an `UndeclaredKindsError` when the operator used kinds it does
   * not declare (a forgotten `.owns()`), so that the test fails. Calling it again waits for the first call.
   */
  stop(): Promise<void>;
}

/**
 * Installs the operator's CRDs (waiting until Established), starts it in this process and resolves
 * once its caches have synced. It runs as deployed in what it writes: its client is the one its
 * manager makes, writing as field manager the operator's name, as under `kubeloop run`. Its declared webhooks are served on a free port with a certificate
 * of its own, through configurations of this call that admit only the namespaces
 * {@link testNamespace} creates in this process (the apiserver calls `https://127.0.0.1:<port>`:
 * a cluster on this machine, as `kubeloop test` starts); its conversions are served by the run
 * when `kubeloop test` serves them for the whole cluster (see {@link serveConversions}). Warnings and errors are logged
 * (`LOG_LEVEL` sets the level).
 *
 * @example
 * ```ts
 * const running = await startOperator(operator);
 * after(() => running.stop());
 * ```
 */
export async function startOperator(
  operator: Operator,
  options: StartOperatorOptions = {},
): Promise<RunningOperator> {
  const given = options.kubeconfig ?? process.env[TEST_KUBECONFIG_ENV];
  const cluster = given ? undefined : await startCluster();
  const kubeconfig = given ?? (cluster as Cluster).kubeconfigPath;
  const stopping = new AbortController();
  let running: Promise<void> = Promise.resolve();
  let client: Client | undefined;
  const declared = options.manager?.webhooks ?? operator.definition.webhooks ?? [];
  const webhooks = webhooksServedInTest(declared, cluster !== undefined);
  const webhookServer = { ...testWebhookServing(operator.name), ...options.manager?.webhookServer };
  let operatorClient: Client | undefined;
  let manager: Manager | undefined;
  const stopOnce = async () => {
    stopping.abort();
    await running.catch(() => undefined);
    try {
      if (client && webhooks.length > 0)
        await deleteWebhookConfigurations(client, webhookServer.configurationName);
    } finally {
      await operatorClient?.close();
      await client?.close();
      await cluster?.stop();
    }
    const undeclared = manager?.undeclaredKinds ?? [];
    if (undeclared.length > 0) throw new UndeclaredKindsError(operator.name, undeclared);
  };
  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= stopOnce();
    return stopped;
  };
  try {
    client = new Client(await loadKubeconfig({ kubeconfig }), { qps: Number.POSITIVE_INFINITY });
    await installCrds(client, operator.kinds);
    // The manager makes its own client, as `kubeloop run` does: it writes as the operator's name.
    const started = await Manager.create({
      name: operator.name,
      config: { kubeconfig },
      clientOptions: { qps: Number.POSITIVE_INFINITY },
      logger: testLogger(),
      metrics: false,
      health: false,
      leaderElection: false,
      namespace: operator.definition.watchNamespace,
      permissions: operator.definition.permissions,
      ...options.manager,
      webhooks,
      webhookServer,
    });
    manager = started;
    operatorClient = started.client;
    await operator.setup(started);
    running = started.start(stopping.signal);
    await eventuallyWhile(
      running,
      `the operator ${operator.name} stopped while starting`,
      () => started.ready,
      {
        what: `the caches of ${operator.name} to sync`,
        timeoutMs: options.syncTimeoutMs ?? 60_000,
      },
    );
    return { client, manager: started, kubeconfig, stop, [Symbol.asyncDispose]: stop };
  } catch (err) {
    // Nothing started for a failed start outlives it: the manager, the client, a cluster of its own.
    await stop().catch(() => undefined);
    throw err;
  }
}

function testLogger(): Logger {
  return pino({ name: "test", level: process.env.LOG_LEVEL ?? "warn" });
}
