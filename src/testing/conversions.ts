/**
 * The conversion webhooks of a test run. A CRD has one conversion `clientConfig` for the whole
 * cluster, so when test files run in parallel on one cluster, each starting the operator, they
 * cannot each point the CRD at themselves (the last one started would win, and its stop would
 * leave the CRD pointing at a closed port for every other file). One process serves the
 * conversions for the whole run instead, as envtest's one webhook server does: `kubeloop test`
 * (and the conformance kit, for a cluster of its own) starts it with {@link serveConversions} and
 * names it to the test processes in {@link CONVERSION_HOST_ENV}; {@link startOperator} then serves
 * the operator's admission webhooks only.
 */
import type { Logger } from "pino";
import pino from "pino";
import { CustomResourceDefinition } from "../api/index.ts";
import { Client, loadKubeconfig } from "../client/index.ts";
import { Manager } from "../manager/index.ts";
import { installCrds, type Operator } from "../operator/index.ts";
import {
  admissionsOf,
  type ConversionWebhook,
  conversionsOf,
  crdNameOf,
  type Webhook,
} from "../webhook/index.ts";
import { eventuallyWhile } from "./eventually.ts";

/**
 * The environment variable naming the run's conversion host (`https://127.0.0.1:<port>`), set by
 * `kubeloop test` for the test processes when the operator declares conversions.
 */
export const CONVERSION_HOST_ENV = "KUBELOOP_CONVERSION_HOST";

/** The conversion webhooks being served for a run. */
export interface ConversionHost extends AsyncDisposable {
  /** Where the apiserver calls them, `https://127.0.0.1:<port>`; undefined when there are none. */
  readonly url: string | undefined;
  /** Stops serving. Calling it again waits for the first call. */
  stop(): Promise<void>;
}

/**
 * The webhooks a test's own operator serves of `webhooks`: all of them, but for the conversions
 * when the run serves those ({@link CONVERSION_HOST_ENV} is set) and the operator runs on the
 * run's cluster rather than on one of its own.
 */
export function webhooksServedInTest(webhooks: readonly Webhook[], ownCluster = false): readonly Webhook[] {
  if (ownCluster || !process.env[CONVERSION_HOST_ENV]) return webhooks;
  return admissionsOf(webhooks);
}

/**
 * Installs the CRDs of `operators` that declare conversions and serves those conversions in this
 * process (port 0, a self-managed certificate) until stopped; resolves once every such CRD's
 * `spec.conversion` calls it. Nothing is served when none declares a conversion.
 *
 * @example
 * ```ts
 * const host = await serveConversions(client, [operator]);
 * process.env[CONVERSION_HOST_ENV] = host.url;
 * ```
 */
export async function serveConversions(
  client: Client,
  operators: readonly Operator[],
  logger: Logger = pino({ name: "conversions", level: process.env.LOG_LEVEL ?? "warn" }),
): Promise<ConversionHost> {
  const converting = operators.filter((o) => conversionsOf(o.definition.webhooks).length > 0);
  const webhooks = converting.flatMap((o) => conversionsOf(o.definition.webhooks));
  if (webhooks.length === 0)
    return { url: undefined, stop: async () => {}, [Symbol.asyncDispose]: async () => {} };
  await installCrds(
    client,
    converting.flatMap((o) => o.kinds),
  );
  const manager = await Manager.create({
    name: "kubeloop-test-conversions",
    client,
    logger,
    metrics: false,
    health: false,
    leaderElection: false,
    webhooks,
    webhookServer: { port: 0 },
  });
  const stopping = new AbortController();
  const running = manager.start(stopping.signal);
  // Never silent: a host that dies mid-run takes every conversion of the run's tests with it.
  running.then(
    () =>
      stopping.signal.aborted ||
      logger.error("the conversion host stopped unasked: conversions fail until the run restarts"),
    (err: unknown) =>
      logger.error({ err }, "the conversion host failed: conversions fail until the run restarts"),
  );
  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopping.abort();
    stopped ??= running.catch(() => undefined);
    return stopped;
  };
  try {
    const url = await untilServing(client, manager, running, webhooks);
    return { url, stop, [Symbol.asyncDispose]: stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Resolves with the host's URL once every CRD of `webhooks` calls it; rejects when the manager stops first. */
function untilServing(
  client: Client,
  manager: Manager,
  running: Promise<void>,
  webhooks: readonly ConversionWebhook[],
): Promise<string> {
  const serving = async (signal: AbortSignal) => {
    const port = manager.ports.webhook;
    if (port === undefined) return undefined;
    const url = `https://127.0.0.1:${port}`;
    for (const webhook of webhooks) {
      const crd = await client.get(CustomResourceDefinition, crdNameOf(webhook), { signal });
      if (crd.spec.conversion?.webhook?.clientConfig?.url !== `${url}/convert`) return undefined;
    }
    return url;
  };
  const what = "the CRDs' conversion calling the run's host";
  return eventuallyWhile(running, "the conversion host stopped while starting", serving, { what });
}

/**
 * Runs `run` while `operators`' conversions are served on the cluster of `kubeconfig` (see
 * {@link serveConversions}), giving it the environment that names the host to the test processes
 * ({@link CONVERSION_HOST_ENV}, absent when there are none); resolves with `run`'s result.
 *
 * @example
 * ```ts
 * const code = await whileServingConversions(kubeconfig, [operator], (env) =>
 *   runTests({ ...process.env, ...env }),
 * );
 * ```
 */
export async function whileServingConversions<T>(
  kubeconfig: string,
  operators: readonly Operator[],
  run: (env: Record<string, string>) => Promise<T>,
): Promise<T> {
  const client = new Client(await loadKubeconfig({ kubeconfig }));
  try {
    const host = await serveConversions(client, operators);
    try {
      return await run(host.url ? { [CONVERSION_HOST_ENV]: host.url } : {});
    } finally {
      await host.stop();
    }
  } finally {
    await client.close();
  }
}
