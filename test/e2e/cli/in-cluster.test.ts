/**
 * The generated deployment, run as a pod runs it: `kubeloop generate` writes the manifests, the
 * Namespace, CRDs, ServiceAccount and RBAC are applied, and the operator process gets what the
 * kubelet would give its container — the Deployment's args and downward-API environment,
 * `KUBERNETES_SERVICE_HOST`/`_PORT` of the local apiserver, and a bound service-account token with
 * the cluster CA mounted at /var/run/secrets/kubernetes.io/serviceaccount (in a mount namespace of
 * its own: `unshare --mount`, root only). So it authenticates as the ServiceAccount and may do only
 * what the generated RBAC grants: sync its caches, win its Lease, reconcile, serve its endpoints.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { parseAllDocuments } from "yaml";
import { ConfigMap, Lease } from "../../../src/api/index.ts";
import { eventually, kubeconfigPath, kubectl, kubectlJson, testClient } from "../support.ts";
import { cli, freshEnv, kubeloop, operatorModule } from "./project.ts";

const serviceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount";

/** A port free on the loopback interface now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

interface Container {
  args: string[];
  env: { name: string; valueFrom?: { fieldRef?: { fieldPath: string } } }[];
}

/** The operator container of the generated Deployment. */
function containerOf(deploymentYaml: string): Container {
  const [deployment] = parseAllDocuments(deploymentYaml).map((d) => d.toJS());
  return deployment.spec.template.spec.containers[0] as Container;
}

/** The downward-API values the kubelet would set for `pod`. */
function downwardEnv(container: Container, pod: { name: string; namespace: string; uid: string }) {
  const field: Record<string, string> = {
    "metadata.name": pod.name,
    "metadata.namespace": pod.namespace,
    "metadata.uid": pod.uid,
  };
  return Object.fromEntries(
    container.env.map((e) => [e.name, field[e.valueFrom?.fieldRef?.fieldPath ?? ""] ?? ""]),
  );
}

/** Writes what the kubelet mounts for a service account: `token`, `ca.crt`, `namespace`. */
async function serviceAccountFiles(dir: string, namespace: string, account: string): Promise<void> {
  const token = (await kubectl(["create", "token", account, "-n", namespace, "--duration=1h"])).stdout.trim();
  const config = await kubectlJson<{ clusters: { cluster: Record<string, string> }[] }>([
    "config",
    "view",
    "--raw",
    "--minify",
  ]);
  const ca = Buffer.from(config.clusters[0]?.cluster["certificate-authority-data"] ?? "", "base64");
  writeFileSync(join(dir, "token"), token);
  writeFileSync(join(dir, "ca.crt"), ca);
  writeFileSync(join(dir, "namespace"), namespace);
}

/** Runs `kubeloop run` as the container would, with `secrets` mounted where a pod has them. */
function runAsPod(projectDir: string, secrets: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const mount = `mount -t tmpfs tmpfs /run && mkdir -p ${serviceAccountDir} && cp ${secrets}/* ${serviceAccountDir}/`;
  const command = [process.execPath, cli, "run", "--operator", "operator.mjs", ...args]
    .map((a) => `'${a}'`)
    .join(" ");
  return spawn("unshare", ["--mount", "sh", "-c", `${mount} && exec ${command}`], {
    cwd: projectDir,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
}

test("the generated deployment runs in-cluster: service-account token, generated RBAC, Lease, reconciles, endpoints", async (t) => {
  const group = `incluster-${randomBytes(3).toString("hex")}.e2e.kubeloop.dev`;
  const namespace = `bolts-${randomBytes(3).toString("hex")}`;
  const dir = mkdtempSync(join(tmpdir(), "kubeloop-in-cluster-"));
  const secrets = mkdtempSync(join(tmpdir(), "kubeloop-sa-"));
  t.after(async () => {
    for (const file of ["rbac.yaml", "crds.yaml", "namespace.yaml"]) {
      await kubectl(["delete", "--wait=false", "-f", join(dir, "config", file)], { allowFail: true });
    }
    rmSync(dir, { recursive: true, force: true });
    rmSync(secrets, { recursive: true, force: true });
  });
  writeFileSync(join(dir, "operator.mjs"), operatorModule(group));
  await kubeloop(["generate", "--operator", "operator.mjs", "--namespace", namespace], dir, {
    KUBECONFIG: kubeconfigPath(),
  });
  for (const file of ["namespace.yaml", "crds.yaml", "serviceaccount.yaml", "rbac.yaml"]) {
    await kubectl(["apply", "--server-side", "-f", join(dir, "config", file)]);
  }
  await kubectl(["wait", "--for=condition=Established", `crd/bolts.${group}`, "--timeout=60s"]);
  await serviceAccountFiles(secrets, namespace, "bolts");

  const container = containerOf(readFileSync(join(dir, "config", "deployment.yaml"), "utf8"));
  const [metricsPort, healthPort] = [await freePort(), await freePort()];
  // The Deployment's own args, its fixed ports swapped for free ones (this host runs other tests).
  const args = container.args.map((a) =>
    a
      .replace(/^(--metrics-bind-address=):\d+$/, `$1:${metricsPort}`)
      .replace(/^(--health-probe-bind-address=):\d+$/, `$1:${healthPort}`),
  );
  const server = new URL(
    (await kubectlJson<{ clusters: { cluster: { server: string } }[] }>(["config", "view", "--minify"]))
      .clusters[0]?.cluster.server ?? "",
  );
  const pod = { name: "bolts-7d4b9c-x2x9q", namespace, uid: randomUUID() };
  const operator = runAsPod(dir, secrets, args, {
    ...freshEnv(),
    ...downwardEnv(container, pod),
    KUBERNETES_SERVICE_HOST: server.hostname,
    KUBERNETES_SERVICE_PORT: server.port,
  });
  let output = "";
  operator.stdout?.on("data", (chunk) => (output += chunk));
  operator.stderr?.on("data", (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => operator.on("exit", (code) => resolve(code)));
  t.after(() => operator.kill("SIGKILL"));

  await eventually(async () => (await fetch(`http://127.0.0.1:${healthPort}/readyz`)).ok, {
    timeoutMs: 60_000,
    what: `the operator's /readyz (output so far:\n${output})`,
  });
  const admin = await testClient();
  const lease = await eventually(
    async () => (await admin.get(Lease, "bolts", { namespace })).spec?.holderIdentity,
    { what: "the operator to hold its Lease" },
  );
  assert.equal(lease, `${pod.name}_${pod.uid}`, "the identity comes from the downward API");
  await kubectl(["apply", "-n", namespace, "-f", "-"], {
    input: JSON.stringify({
      apiVersion: `${group}/v1`,
      kind: "Bolt",
      metadata: { name: "m8" },
      spec: { length: 40 },
    }),
  });
  const data = await eventually(async () => (await admin.get(ConfigMap, "m8-length", { namespace })).data, {
    what: "the ConfigMap of Bolt m8, written under the generated RBAC",
  });
  assert.deepEqual(data, { length: "40" });
  const written = await admin.get(ConfigMap, "m8-length", { namespace });
  assert.deepEqual(
    written.metadata.managedFields?.map((e) => e.manager),
    ["bolts"],
    "it writes as the operator's name, as startOperator's operator does",
  );
  const anonymous = await fetch(`https://127.0.0.1:${metricsPort}/metrics`, {
    // @ts-expect-error Node's fetch takes undici's dispatcher; the serving certificate is self-signed.
    dispatcher: new (await import("undici")).Agent({ connect: { rejectUnauthorized: false } }),
  });
  assert.equal(anonymous.status, 401, "secure metrics refuse a caller without a token");

  operator.kill("SIGTERM");
  assert.equal(await exited, 0, `SIGTERM stops it cleanly; output:\n${output}`);
  assert.doesNotMatch(output, /Warning|Forbidden|\bforbidden\b/, "no Node warning, no RBAC denial");
});
