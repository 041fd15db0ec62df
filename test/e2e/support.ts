/**
 * Helpers shared by end-to-end tests: the cluster that `test/run.ts` started, kubectl against it,
 * a fresh namespace per test, and polling with a deadline.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import type { TestContext } from "node:test";
import { promisify } from "node:util";
import pino, { type Logger } from "pino";
import type { KubeObject, ResourceType } from "../../src/api/index.ts";
import {
  Client,
  type ClientMetrics,
  loadKubeconfig,
  type RequestObservation,
} from "../../src/client/index.ts";
import { Manager, type ManagerOptions } from "../../src/manager/index.ts";
import { installCrds, waitEstablished } from "../../src/operator/index.ts";
import type { AnyKind } from "../../src/schema/index.ts";
import { scrapeMetric } from "../../src/testing/metrics.ts";

const execFileAsync = promisify(execFile);

/** The run's kubeconfig path; fails clearly when the file was not started through `test/run.ts`. */
export function kubeconfigPath(): string {
  const path = process.env.KUBECONFIG;
  if (!path || !process.env.KUBELOOP_E2E_BIN) {
    throw new Error(
      "end-to-end tests run through `npm run test:e2e` (test/run.ts), which starts the cluster",
    );
  }
  return path;
}

/** Path of a control-plane binary built for this run (`kubectl`, `kube-apiserver`, ...). */
export function binary(name: string): string {
  kubeconfigPath();
  return join(process.env.KUBELOOP_E2E_BIN as string, name);
}

/** Runs the built kubectl; rejects with its stderr when it exits non-zero unless `allowFail`. */
export async function kubectl(
  args: string[],
  opts: { input?: string; allowFail?: boolean; kubeconfig?: string } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const run = execFileAsync(
    binary("kubectl"),
    [`--kubeconfig=${opts.kubeconfig ?? kubeconfigPath()}`, ...args],
    {
      maxBuffer: 64 << 20,
      timeout: 120_000,
    },
  );
  if (opts.input !== undefined) run.child.stdin?.end(opts.input);
  try {
    const { stdout, stderr } = await run;
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    const result = {
      code: typeof e.code === "number" ? e.code : 1,
      stdout: e.stdout ?? "",
      stderr: e.stderr ?? "",
    };
    if (opts.allowFail) return result;
    throw new Error(`kubectl ${args.join(" ")} failed (${result.code}): ${result.stderr || result.stdout}`);
  }
}

/**
 * Applies a CRD for `kind` whose objects may hold anything (a schema preserving unknown fields),
 * and waits until it is Established: a stand-in for a kind of another project.
 */
export async function installOpenCrd(group: string, kind: string, plural: string): Promise<void> {
  const name = `${plural}.${group}`;
  const crd = {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name },
    spec: {
      group,
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      scope: "Namespaced",
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
        },
      ],
    },
  };
  await kubectl(["apply", "--server-side", "--force-conflicts", "-f", "-"], { input: JSON.stringify(crd) });
  await crdsEstablished([name]);
}

/**
 * Waits until the CRDs `names` are Established on the run's cluster, or on the one `kubeconfig`
 * names: `kubectl wait --for=condition=Established` fails at once on a CRD whose status the
 * apiserver has not written yet (`.status.conditions accessor error: <nil>`), which a CI run met.
 */
export async function crdsEstablished(names: readonly string[], kubeconfig?: string): Promise<void> {
  await withClient({ kubeconfig }, (client) => waitEstablished(client, names));
}

/**
 * Installs the CRDs of `kinds` as kubeloop's `installCrds` does — server-side applied, forced
 * (files running in parallel apply the same CRDs), then waited for until Established — on the
 * run's cluster or the one `kubeconfig` names, as field manager `fieldManager` (default: the test
 * client's).
 */
export async function installKinds(
  kinds: readonly AnyKind[],
  options: { fieldManager?: string; kubeconfig?: string } = {},
): Promise<void> {
  await withClient(options, (client) => installCrds(client, kinds));
}

/**
 * Runs `use` with the shared test client, or with a client of the cluster `kubeconfig` names (default
 * the run's) writing as `fieldManager`, closed afterwards.
 */
async function withClient<T>(
  options: { fieldManager?: string; kubeconfig?: string },
  use: (client: Client) => Promise<T>,
): Promise<T> {
  if (!options.fieldManager && !options.kubeconfig) return use(await testClient());
  const config = await loadKubeconfig({ kubeconfig: options.kubeconfig ?? kubeconfigPath() });
  const client = new Client(config, { fieldManager: options.fieldManager, qps: Number.POSITIVE_INFINITY });
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}

/** `kubectl ... -o json`, parsed. */
export async function kubectlJson<T = unknown>(args: string[]): Promise<T> {
  return JSON.parse((await kubectl([...args, "-o", "json"])).stdout) as T;
}

/**
 * Creates a namespace for one test, named after it with a random suffix, and deletes it (without
 * waiting) when the test ends: the kit's {@link kitTestNamespace} with the run's admin client.
 */
export async function testNamespace(t: TestContext): Promise<string> {
  return kitTestNamespace(await testClient(), t);
}

import { eventually, testNamespace as kitTestNamespace } from "../../src/testing/index.ts";

export { eventually };

let sharedClient: Client | undefined;

/** A {@link Client} for the run's cluster (admin), shared by the tests of one file; unlimited rate. */
export async function testClient(): Promise<Client> {
  sharedClient ??= new Client(await loadKubeconfig({ kubeconfig: kubeconfigPath() }), {
    qps: Number.POSITIVE_INFINITY,
  });
  return sharedClient;
}

/**
 * A client of the run's cluster writing as field manager `fieldManager` (another tool, a previous
 * operator), closed when the test ends.
 */
export async function clientAs(t: TestContext, fieldManager: string): Promise<Client> {
  const client = new Client(await loadKubeconfig({ kubeconfig: kubeconfigPath() }), {
    fieldManager,
    qps: Number.POSITIVE_INFINITY,
  });
  t.after(() => client.close());
  return client;
}

/**
 * An update as controller-runtime's `CreateOrUpdate` makes it: reads the object, writes (a PUT)
 * what `mutate` makes of it, and again when the object changed in between (a 409: most often its
 * controller's status).
 */
export function readAndUpdate<T extends KubeObject>(
  client: Client,
  type: ResourceType<T>,
  obj: KubeObject,
  mutate: (current: T) => T,
): Promise<T> {
  const { name = "", namespace } = obj.metadata;
  return eventually(async () => client.update(type, mutate(await client.get(type, name, { namespace }))), {
    what: `the update of ${type.kind} ${name}`,
  });
}

/** A quiet pino logger for managers under test (warnings and errors only, unless LOG_LEVEL says otherwise). */
export function testLogger(): Logger {
  return pino({ level: process.env.LOG_LEVEL ?? "warn" });
}

const cleanups = new WeakMap<TestContext, (() => unknown)[]>();

/**
 * Runs `fn` when the test ends, after everything registered later (last in, first out, unlike
 * `t.after`): a watch or manager stops before the proxy, client or cluster it runs on.
 */
export function onCleanup(t: TestContext, fn: () => unknown): void {
  let stack = cleanups.get(t);
  if (!stack) {
    const fns: (() => unknown)[] = [];
    stack = fns;
    cleanups.set(t, fns);
    t.after(async () => {
      for (const cleanup of fns.reverse()) await cleanup();
    });
  }
  stack.push(fn);
}

/**
 * Creates a Manager for a test (endpoints on free loopback ports, a quiet logger, `options`
 * overriding), lets `setup` build its controllers, starts it, waits until it is ready, and stops
 * it when the test ends (after `beforeStop`, when given).
 */
export async function startManager(
  t: TestContext,
  options: Partial<ManagerOptions> & { name: string },
  setup: (manager: Manager) => void | Promise<void>,
  beforeStop: () => void = () => {},
): Promise<Manager> {
  const manager = await Manager.create({
    metrics: { host: "127.0.0.1", port: 0 },
    health: { host: "127.0.0.1", port: 0 },
    logger: testLogger(),
    ...options,
  });
  await setup(manager);
  const stop = new AbortController();
  const running = manager.start(stop.signal);
  onCleanup(t, async () => {
    beforeStop();
    stop.abort();
    await running;
  });
  await eventually(() => manager.ready, { what: `manager ${options.name} ready` });
  return manager;
}

const writeVerbs = new Set(["create", "update", "patch", "delete", "deletecollection"]);

/** Counts the requests a client sends (pass it as `ClientOptions.metrics`). */
export class RequestCounter implements ClientMetrics {
  readonly seen: RequestObservation[] = [];

  request(observation: RequestObservation): void {
    this.seen.push(observation);
  }

  /** Write requests (create, update, patch, delete) sent so far, whatever their answer. */
  get writes(): number {
    return this.seen.filter((o) => writeVerbs.has(o.verb)).length;
  }

  /** Requests answered with `code` so far. */
  answered(code: string): number {
    return this.seen.filter((o) => o.code === code).length;
  }
}

/** The sum of metric `name`'s samples with `labels` on the manager's `/metrics` (0 when none). */
export function managerMetric(
  manager: Manager,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  return scrapeMetric(`http://127.0.0.1:${manager.ports.metrics}/metrics`, name, labels);
}

/**
 * Write requests (POST, PUT, PATCH, DELETE) the manager's client has sent so far, once the Events
 * its recorder holds are written: an Event recorded before the count is sent in the background,
 * and would otherwise land between two counts (it failed a CI run of the takeover test).
 */
export async function writesSent(manager: Manager): Promise<number> {
  await manager.recorder.flush(AbortSignal.timeout(10_000));
  const counts = await Promise.all(
    ["POST", "PUT", "PATCH", "DELETE"].map((method) =>
      managerMetric(manager, "rest_client_requests_total", { method }),
    ),
  );
  return counts.reduce((a, b) => a + b, 0);
}
