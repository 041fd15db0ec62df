/**
 * How each component of a local control plane is set up: the run directory (CA, serving and admin
 * certificates, service-account keys, the admin kubeconfig) and each component's command line on
 * its loopback ports.
 */
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CertificateAuthority, createCertificateAuthority, issueCertificate } from "../tls/index.ts";
import { buildKubeconfig, type KubeconfigDocument, kubeconfigYaml } from "./kubeconfig.ts";
import { createServiceAccountKey } from "./pki.ts";
import { controlplaneDir } from "./versions.ts";

/** Names of the processes a cluster runs. */
export type ComponentName = "etcd" | "kube-apiserver" | "kube-controller-manager" | "kube-scheduler" | "kwok";

/** The loopback ports of one run. */
export interface Ports {
  etcdClient: number;
  etcdPeer: number;
  apiserver: number;
  controllerManager: number;
  scheduler: number;
}

/** The files of one run, and where they live. */
export interface RunFiles {
  dir: string;
  ca: CertificateAuthority;
  kubeconfigPath: string;
  kubeconfig: KubeconfigDocument;
  admin: { certPem: string; keyPem: string };
  path: (name: string) => string;
}

/**
 * Creates the run directory (`runDir`, else a new temporary one) with a fresh CA, the apiserver's
 * serving certificate, the service-account key pair and an admin kubeconfig for `server`.
 */
export async function prepareRunDir(runDir: string | undefined, server: string): Promise<RunFiles> {
  const dir = runDir ?? mkdtempSync(join(tmpdir(), "kubeloop-"));
  mkdirSync(dir, { recursive: true });
  const path = (name: string) => join(dir, name);
  const ca = await createCertificateAuthority("kubeloop-ca");
  const serving = await issueCertificate(ca, {
    commonName: "kube-apiserver",
    hosts: [
      "127.0.0.1",
      "localhost",
      "kubernetes",
      "kubernetes.default",
      "kubernetes.default.svc",
      "10.96.0.1",
    ],
    usage: "server",
  });
  const admin = await issueCertificate(ca, {
    commonName: "kubeloop-admin",
    organizations: ["system:masters"],
    usage: "client",
  });
  const sa = createServiceAccountKey();
  const files: Record<string, string> = {
    "ca.crt": ca.certPem,
    "apiserver.crt": serving.certPem,
    "apiserver.key": serving.keyPem,
    "sa.key": sa.privatePem,
    "sa.pub": sa.publicPem,
  };
  for (const [name, content] of Object.entries(files)) writeFileSync(path(name), content, { mode: 0o600 });
  const kubeconfig = buildKubeconfig({ name: "kubeloop", server, caPem: ca.certPem, ...admin });
  const kubeconfigPath = path("kubeconfig");
  writeFileSync(kubeconfigPath, kubeconfigYaml(kubeconfig), { mode: 0o600 });
  return { dir, ca, kubeconfigPath, kubeconfig, admin, path };
}

/** The command line of component `name`; the apiserver gets `apiserverArgs` last. */
export function componentArgs(
  name: ComponentName,
  run: RunFiles,
  ports: Ports,
  apiserverArgs: readonly string[] = [],
): string[] {
  const kubeconfig = run.kubeconfigPath;
  const delegated = [
    `--kubeconfig=${kubeconfig}`,
    `--authentication-kubeconfig=${kubeconfig}`,
    `--authorization-kubeconfig=${kubeconfig}`,
  ];
  const etcdClient = `http://127.0.0.1:${ports.etcdClient}`;
  const etcdPeer = `http://127.0.0.1:${ports.etcdPeer}`;
  switch (name) {
    case "etcd":
      return [
        "--name=kubeloop",
        `--data-dir=${run.path("etcd")}`,
        `--listen-client-urls=${etcdClient}`,
        `--advertise-client-urls=${etcdClient}`,
        `--listen-peer-urls=${etcdPeer}`,
        `--initial-advertise-peer-urls=${etcdPeer}`,
        `--initial-cluster=kubeloop=${etcdPeer}`,
        "--unsafe-no-fsync=true",
        "--log-level=warn",
      ];
    case "kube-apiserver":
      return [
        `--etcd-servers=${etcdClient}`,
        "--bind-address=127.0.0.1",
        "--advertise-address=127.0.0.1",
        `--secure-port=${ports.apiserver}`,
        `--cert-dir=${run.path("apiserver-certs")}`,
        `--tls-cert-file=${run.path("apiserver.crt")}`,
        `--tls-private-key-file=${run.path("apiserver.key")}`,
        `--client-ca-file=${run.path("ca.crt")}`,
        "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
        `--service-account-key-file=${run.path("sa.pub")}`,
        `--service-account-signing-key-file=${run.path("sa.key")}`,
        "--service-cluster-ip-range=10.96.0.0/16",
        "--authorization-mode=Node,RBAC",
        "--allow-privileged=true",
        "--endpoint-reconciler-type=none",
        "--profiling=false",
        // Sharded list and watch (v1.36 alpha, KEP-5866), for sharded controllers; a later
        // `--feature-gates=ShardedListAndWatch=false` in `apiserverArgs` turns it off again.
        "--feature-gates=ShardedListAndWatch=true",
        ...apiserverArgs,
      ];
    case "kube-controller-manager":
      return [
        ...delegated,
        "--bind-address=127.0.0.1",
        `--secure-port=${ports.controllerManager}`,
        `--cert-dir=${run.path("kcm-certs")}`,
        "--leader-elect=false",
        `--service-account-private-key-file=${run.path("sa.key")}`,
        `--root-ca-file=${run.path("ca.crt")}`,
        "--profiling=false",
        // Its client at 20 requests/s (the default) paced the whole plane: deleting a namespace
        // (a list and a delete per resource type) took 5–11 s, and 100 Deployments' ReplicaSets and
        // pods 13–15 s. A local plane has one client to serve, so it runs unthrottled, as load-test
        // clusters do (kubernetes-controller-sharding's sets 800); operators keep their own limits.
        "--kube-api-qps=1000",
        "--kube-api-burst=2000",
      ];
    case "kube-scheduler":
      return [
        ...delegated,
        "--bind-address=127.0.0.1",
        `--secure-port=${ports.scheduler}`,
        `--cert-dir=${run.path("scheduler-certs")}`,
        "--leader-elect=false",
        "--profiling=false",
      ];
    case "kwok":
      return [
        `--kubeconfig=${kubeconfig}`,
        "--manage-all-nodes=true",
        "--cidr=10.244.0.0/16",
        "--node-ip=10.1.0.1",
        "--node-lease-duration-seconds=40",
        ...readdirSync(join(controlplaneDir, "stages"))
          .filter((f) => f.endsWith(".yaml"))
          .map((f) => `--config=${join(controlplaneDir, "stages", f)}`),
      ];
  }
}
