import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { ConfigMap, type ConfigMapObject } from "../../../src/api/core/v1.ts";
import { program } from "../../../src/cli/main.ts";
import { controller } from "../../../src/controller/index.ts";
import { ensureChild } from "../../../src/ownership/index.ts";
import {
  Certificate,
  type CertificateObject,
} from "../../fixtures/crds/generated/cert-manager.io/v1/certificates.ts";
import {
  HTTPRoute,
  type HTTPRouteObject,
} from "../../fixtures/crds/generated/gateway.networking.k8s.io/v1/httproutes.ts";
import {
  ServiceMonitor,
  type ServiceMonitorObject,
} from "../../fixtures/crds/generated/monitoring.coreos.com/v1/servicemonitors.ts";
import { crdsEstablished, eventually, kubectl, startManager, testClient, testNamespace } from "../support.ts";

const fixtures = join(import.meta.dirname, "..", "..", "fixtures", "crds");

async function installCrd(file: string, name: string): Promise<void> {
  await kubectl(["apply", "--server-side", "--force-conflicts", "-f", join(fixtures, file)]);
  await crdsEstablished([name]);
}

function certificate(namespace: string, dnsNames: string[]): CertificateObject {
  return {
    apiVersion: "cert-manager.io/v1",
    kind: "Certificate",
    metadata: { name: "web", namespace },
    spec: {
      secretName: "web-tls",
      dnsNames,
      duration: "2160h",
      privateKey: { algorithm: "ECDSA", size: 256, rotationPolicy: "Always" },
      issuerRef: { name: "letsencrypt", kind: "ClusterIssuer", group: "cert-manager.io" },
    },
  };
}

test("objects of imported CRDs round-trip through the apiserver with their generated descriptors", async (t) => {
  await installCrd("certificates.yaml", "certificates.cert-manager.io");
  await installCrd("httproutes.yaml", "httproutes.gateway.networking.k8s.io");
  await installCrd("servicemonitors.yaml", "servicemonitors.monitoring.coreos.com");
  const ns = await testNamespace(t);
  const client = await testClient();

  const cert = certificate(ns, ["web.example.com"]);
  await client.create(Certificate, cert);
  assert.deepEqual((await client.get(Certificate, "web", { namespace: ns })).spec, cert.spec);

  const route: HTTPRouteObject = {
    apiVersion: "gateway.networking.k8s.io/v1",
    kind: "HTTPRoute",
    metadata: { name: "web", namespace: ns },
    spec: {
      parentRefs: [{ name: "gateway" }],
      hostnames: ["web.example.com"],
      rules: [
        {
          matches: [{ path: { type: "PathPrefix", value: "/api" } }],
          backendRefs: [{ name: "api", port: 8080 }],
        },
      ],
    },
  };
  const created = await client.create(HTTPRoute, route);
  assert.equal(created.spec?.rules?.[0]?.backendRefs?.[0]?.port, 8080);
  assert.equal(created.spec?.rules?.[0]?.matches?.[0]?.path?.value, "/api");

  const monitor: ServiceMonitorObject = {
    apiVersion: "monitoring.coreos.com/v1",
    kind: "ServiceMonitor",
    metadata: { name: "web", namespace: ns },
    spec: {
      selector: { matchLabels: { app: "web" } },
      endpoints: [{ port: "metrics", interval: "30s", targetPort: 9090 }],
    },
  };
  await client.create(ServiceMonitor, monitor);
  const [listed] = (await client.list(ServiceMonitor, { namespace: ns })).items;
  assert.deepEqual(listed?.spec, monitor.spec);
});

test("a controller for an imported kind owns children typed by the generated built-in API", async (t) => {
  await installCrd("certificates.yaml", "certificates.cert-manager.io");
  const ns = await testNamespace(t);
  const client = await testClient();
  await startManager(t, { name: "certificates-e2e", client, namespace: ns }, (manager) => {
    controller(manager)
      .for(Certificate)
      .owns(ConfigMap)
      .reconcile(async (ctx) => {
        const cert = ctx.object;
        if (!cert) return;
        const hosts: ConfigMapObject = {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: `${cert.metadata.name}-hosts`, namespace: cert.metadata.namespace },
          data: { dnsNames: (cert.spec?.dnsNames ?? []).join(",") },
        };
        await ensureChild(ctx, cert, ConfigMap, hosts);
      });
  });
  await client.create(Certificate, certificate(ns, ["a.example.com"]));
  const hostsAre = (expected: string) => async () =>
    (await client.get(ConfigMap, "web-hosts", { namespace: ns }).catch(() => undefined))?.data?.dnsNames ===
    expected;
  await eventually(hostsAre("a.example.com"), { what: "the child ConfigMap of the Certificate" });

  await client.patch(
    Certificate,
    "web",
    { spec: { dnsNames: ["a.example.com", "b.example.com"] } },
    { type: "merge", namespace: ns },
  );
  await eventually(hostsAre("a.example.com,b.example.com"), {
    what: "the child updated after a spec change",
  });
});

test("kubeloop import --from-cluster writes the same module as importing the CRD's file", async (t) => {
  await installCrd("certificates.yaml", "certificates.cert-manager.io");
  const out = mkdtempSync(join(tmpdir(), "kubeloop-import-"));
  t.after(() => rmSync(out, { recursive: true, force: true }));
  await program().parseAsync([
    "node",
    "kubeloop",
    "import",
    "--from-cluster",
    "cert-manager.io",
    "--out",
    out,
  ]);
  const path = "cert-manager.io/v1/certificates.ts";
  assert.equal(
    readFileSync(join(out, path), "utf8"),
    readFileSync(join(fixtures, "generated", path), "utf8"),
  );
  await assert.rejects(
    program().parseAsync([
      "node",
      "kubeloop",
      "import",
      "--from-cluster",
      "nothing.example.com",
      "--out",
      out,
    ]),
    {
      name: "TypegenError",
      message: /the cluster has no CRD of group nothing\.example\.com\. Fix: install the CRDs first/,
    },
  );
});
