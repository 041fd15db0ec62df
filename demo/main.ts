/**
 * `npm start`: the demo on the embedded default. Starts the local control plane (building it on
 * first use), installs the CRDs, runs both reference operators in one manager, applies their
 * samples, shows a live view of the resources and their conditions as they converge, then
 * tampers with the generated ConfigMap and shows the repair. It keeps running until Ctrl-C;
 * with `--once` it runs the scenario to the end and exits 0 only if every expectation held.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client, Manager, Namespace } from "kubeloop";
import { loadKubeconfig } from "kubeloop/client";
import { type Cluster, startCluster } from "kubeloop/cluster";
import { describeObject, renderDescription } from "kubeloop/describe";
import { LIVE_PATH } from "kubeloop/manager";
import { crdYaml } from "kubeloop/schema";
import pino from "pino";
import loadtest from "../operators/loadtest/operator.ts";
import myproxy from "../operators/myproxy/operator.ts";
import { scenario } from "./scenario.ts";
import { liveView } from "./view.ts";

const once = process.argv.includes("--once");
const root = join(fileURLToPath(import.meta.url), "../..");
const namespace = "demo";
const say = (line: string) => process.stdout.write(`${line}\n`);
const step = (n: number, text: string) => say(`\n[${n}/7] ${text}`);

async function kubectl(cluster: Cluster, args: string[], input?: string): Promise<string> {
  const result = await cluster.kubectl(args, input === undefined ? {} : { input });
  if (result.code !== 0) throw new Error(`kubectl ${args.join(" ")}: ${result.stderr}`);
  return result.stdout;
}

/** What to stop, in reverse order of starting, when the demo ends. */
const cleanups: (() => Promise<void>)[] = [];
let waiting = false;

async function stopEverything(): Promise<void> {
  say("\nStopping the operators and the local control plane...");
  for (const stop of cleanups.splice(0).reverse()) await stop().catch(() => {});
}

// Ctrl-C ends the demo: cleanly (exit 0) once it waits for it, as an interruption (130) before.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => void stopEverything().then(() => process.exit(waiting ? 0 : 130)));
}

async function main(): Promise<number> {
  say("kubeloop demo: the LoadTest and MyProxy operators on a real local Kubernetes control plane");
  step(1, "starting the local control plane (the first run builds it from Go modules, with progress)");
  const cluster = await startCluster({ nodes: 2 });
  cleanups.push(() => cluster.stop());
  const client = new Client(await loadKubeconfig({ kubeconfig: cluster.kubeconfigPath }), {
    qps: 100,
    burst: 200,
  });
  cleanups.push(() => client.close());

  step(2, "installing the CRDs");
  const kinds = [...loadtest.kinds, ...myproxy.kinds];
  await kubectl(cluster, ["apply", "--server-side", "-f", "-"], crdYaml(kinds));
  await kubectl(cluster, ["wait", "--for=condition=Established", "crd", "--all", "--timeout=60s"]);
  say(`  ${kinds.map((k) => `${k.plural}.${k.group}`).join(", ")}`);

  step(3, "running both operators in one manager");
  const logFile = join(cluster.runDir, "operators.log");
  const manager = await Manager.create({
    name: "kubeloop-demo",
    client,
    metrics: { host: "127.0.0.1", port: 0 },
    health: { host: "127.0.0.1", port: 0 },
    logger: pino({ level: "info" }, pino.destination({ dest: logFile, sync: false })),
    // MyProxy's route admission and v1alpha1 ⇄ v1beta1 conversion, on a free port with the manager's own CA.
    webhooks: myproxy.definition.webhooks,
    webhookServer: { port: 0 },
  });
  await loadtest.setup(manager);
  await myproxy.setup(manager);
  const stopManager = new AbortController();
  const running = manager.start(stopManager.signal);
  cleanups.push(async () => {
    stopManager.abort();
    await running;
  });
  while (!manager.ready) await new Promise((r) => setTimeout(r, 100));
  say(`  controllers: ${manager.controllers.map((c) => c.name).join(", ")}; operator logs in ${logFile}`);
  say(
    `  metrics: http://127.0.0.1:${manager.ports.metrics}/metrics  readiness: http://127.0.0.1:${manager.ports.health}/readyz`,
  );
  say(
    `  live page: http://127.0.0.1:${manager.ports.health}${LIVE_PATH}  (controllers, recent reconciles and their triggers)`,
  );

  step(4, `applying the samples to namespace ${namespace}`);
  await client.create(Namespace, { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
  for (const dir of ["operators/loadtest/samples/loadtest.yaml", "operators/myproxy/samples"]) {
    say(
      (await kubectl(cluster, ["apply", "-n", namespace, "-f", join(root, dir)]))
        .trimEnd()
        .replace(/^/gm, "  "),
    );
  }

  step(5, "watching them converge, then tampering with the generated ConfigMap (live view)");
  const stopView = liveView({ client, namespace, kinds });
  const outcomes = await scenario({ client, namespace, say });
  await stopView();

  step(6, "results");
  for (const o of outcomes)
    say(`  ${o.held ? "✓" : "✗"} ${o.description} (${o.seconds.toFixed(1)} s): ${o.detail}`);
  const failed = outcomes.filter((o) => !o.held).length;
  say(failed ? `\n${failed} expectation(s) did not hold.` : "\nEvery expectation held.");

  step(7, `kubeloop describe myproxy/edge -n ${namespace}`);
  const terminal = process.stdout.isTTY === true && !process.env.NO_COLOR;
  const description = await describeObject(client, "myproxy/edge", { namespace });
  say(
    renderDescription(description, { color: terminal, symbols: process.stdout.isTTY === true, events: 12 })
      .trimEnd()
      .replace(/^/gm, "  "),
  );
  if (once) {
    await stopEverything();
    return failed ? 1 : 0;
  }
  say(
    [
      "",
      "The cluster and the operators keep running. In another terminal:",
      `  export KUBECONFIG=${cluster.kubeconfigPath}`,
      `  export PATH=${join(cluster.assets.kubectl, "..")}:$PATH`,
      `  kubectl get loadtests,myproxies,proxyroutes -n ${namespace}`,
      `  kubectl edit configmap edge-nginx -n ${namespace}   # then watch it being put back`,
      `  npx kubeloop describe myproxy/edge -n ${namespace}   # its conditions, tree, events and field owners`,
      `  open http://127.0.0.1:${manager.ports.health}${LIVE_PATH}   # the live page of the operators`,
      "Press Ctrl-C to stop everything.",
    ].join("\n"),
  );
  waiting = true;
  liveView({ client, namespace, kinds });
  return new Promise<number>(() => {});
}

process.exitCode = await main().catch(async (err: unknown) => {
  process.stderr.write(`\ndemo failed: ${err instanceof Error ? err.message : String(err)}\n`);
  await stopEverything();
  return 1;
});
