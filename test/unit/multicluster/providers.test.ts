import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it, type TestContext } from "node:test";
import type { KubeObject } from "../../../src/api/index.ts";
import type { Client } from "../../../src/client/index.ts";
import { controlPlaneReady } from "../../../src/multicluster/cluster-api.ts";
import {
  type CapiClusterObject,
  clusterApiProvider,
  KUBECONFIG_SECRET_LABEL,
  kubeconfigSecretClusters,
  kubeconfigSecretProvider,
  staticProvider,
} from "../../../src/multicluster/index.ts";
import { FakeWatchClient } from "../watch/support.ts";
import { kubeconfigText, recordingSink, settled } from "./support.ts";

const b64 = (text: string) => Buffer.from(text).toString("base64");

function secret(name: string, data: Record<string, string>, resourceVersion: string): KubeObject {
  const meta = { name, namespace: "fleet", resourceVersion, labels: { [KUBECONFIG_SECRET_LABEL]: "true" } };
  return { apiVersion: "v1", kind: "Secret", metadata: meta, data } as KubeObject;
}

/** Runs `provider` on `sink` until the test ends. */
function running(t: TestContext, run: (signal: AbortSignal) => Promise<void>): AbortController {
  const stop = new AbortController();
  const done = run(stop.signal);
  t.after(async () => {
    stop.abort();
    await done;
  });
  return stop;
}

describe("kubeconfigSecretProvider", () => {
  it("engages each labelled Secret's cluster, re-engages only on a changed kubeconfig, disengages on deletion", async (t) => {
    const client = new FakeWatchClient();
    const sink = recordingSink();
    const provider = kubeconfigSecretProvider({ client: client as unknown as Client, namespace: "fleet" });
    const stream = client.stream();
    stream.send("ADDED", secret("east", { kubeconfig: b64(kubeconfigText("https://east:6443")) }, "1"));
    stream.bookmark("1", true);
    running(t, (signal) => provider.run(sink, signal));
    await settled(() => sink.calls.length === 2);
    assert.deepEqual(sink.calls, ["engage east https://east:6443", "ready"]);
    assert.equal(client.watches[0]?.labelSelector, `${KUBECONFIG_SECRET_LABEL}=true`);
    assert.equal(client.watches[0]?.namespace, "fleet");

    stream.send("MODIFIED", secret("east", { kubeconfig: b64(kubeconfigText("https://east:6443")) }, "2"));
    stream.send("MODIFIED", secret("east", { kubeconfig: b64(kubeconfigText("https://east-2:6443")) }, "3"));
    await settled(() => sink.calls.length === 3);
    assert.deepEqual(sink.calls.slice(2), ["engage east https://east-2:6443"]);

    stream.send("ADDED", secret("broken", { kubeconfig: b64("clusters: [") }, "4"));
    await settled(() => sink.calls.length === 4);
    stream.send("MODIFIED", secret("east", {}, "5"));
    stream.send("DELETED", secret("east", {}, "6"));
    await settled(() => sink.calls.length === 5);
    assert.deepEqual(sink.calls.slice(3), [
      "disengage broken: invalid kubeconfig",
      'disengage east: kubeconfig Secret has no key "kubeconfig"',
    ]);
  });
});

describe("kubeconfigSecretClusters", () => {
  it("reads the labelled Secrets' clusters once, by name, each with its connection or why there is none", async () => {
    const asked: unknown[] = [];
    const items = [
      secret("west", { kubeconfig: b64(kubeconfigText("https://west:6443")) }, "1"),
      secret("east", { kubeconfig: b64(kubeconfigText("https://east:6443")) }, "1"),
      secret("empty", {}, "1"),
      secret("garbled", { kubeconfig: b64("{not yaml") }, "1"),
    ];
    const client = {
      list: async (_type: unknown, opts: unknown) => {
        asked.push(opts);
        return { items };
      },
    };
    const clusters = await kubeconfigSecretClusters({
      client: client as unknown as Client,
      namespace: "fleet",
    });
    assert.deepEqual(asked, [{ namespace: "fleet", labelSelector: "kubeloop.dev/kubeconfig=true" }]);
    const shown = clusters.map((c) => `${c.name} ${"connection" in c ? c.connection.server : c.error}`);
    assert.deepEqual(
      [shown[0], shown[1], shown[3]],
      ["east https://east:6443", 'empty kubeconfig Secret has no key "kubeconfig"', "west https://west:6443"],
    );
    assert.match(shown[2] ?? "", /^garbled invalid kubeconfig: /);
  });
});

describe("staticProvider", () => {
  it("engages a cluster per kubeconfig file of a directory and of the list, and disengages them when stopped", async (t) => {
    const dir = mkdtempSync(join(tmpdir(), "kubeloop-static-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, "east.yaml"), kubeconfigText("https://east:6443"));
    writeFileSync(join(dir, ".hidden"), "not a kubeconfig");
    const west = join(dir, "..", `west-${process.pid}.kubeconfig`);
    writeFileSync(west, kubeconfigText("https://west:6443"));
    t.after(() => rmSync(west, { force: true }));
    const sink = recordingSink();
    const stop = running(t, (signal) => staticProvider({ files: [west], directory: dir }).run(sink, signal));
    await settled(() => sink.calls.includes("ready"));
    assert.deepEqual(sink.calls, [
      `engage west-${process.pid} https://west:6443`,
      "engage east https://east:6443",
      "ready",
    ]);
    stop.abort();
    await settled(() => sink.calls.length === 5);
    assert.deepEqual(sink.calls.slice(3), [
      `disengage west-${process.pid}: fleet stopping`,
      "disengage east: fleet stopping",
    ]);
  });
});

describe("clusterApiProvider", () => {
  const capiCluster = (status: CapiClusterObject["status"], resourceVersion: string): CapiClusterObject => ({
    apiVersion: "cluster.x-k8s.io/v1beta1",
    kind: "Cluster",
    metadata: { name: "c1", namespace: "clusters", resourceVersion },
    status,
  });

  it("engages a Cluster once its control plane is ready, with its <name>-kubeconfig Secret's value", async (t) => {
    const client = Object.assign(new FakeWatchClient(), {
      gets: [] as string[],
      async get(_type: unknown, name: string, opts: { namespace?: string }) {
        this.gets.push(`${opts.namespace}/${name}`);
        return { data: { value: b64(kubeconfigText("https://c1:6443")) } };
      },
    });
    const sink = recordingSink();
    const provider = clusterApiProvider({ client: client as unknown as Client });
    const stream = client.stream();
    stream.send("ADDED", capiCluster({ controlPlaneReady: false }, "1"));
    stream.bookmark("1", true);
    running(t, (signal) => provider.run(sink, signal));
    await settled(() => sink.calls.includes("ready"));
    stream.send("MODIFIED", capiCluster({ controlPlaneReady: true }, "2"));
    await settled(() => sink.calls.length === 2);
    stream.send("DELETED", capiCluster({ controlPlaneReady: true }, "3"));
    await settled(() => sink.calls.length === 3);
    assert.deepEqual(sink.calls, [
      "ready",
      "engage clusters/c1 https://c1:6443",
      "disengage clusters/c1: Cluster deleted",
    ]);
    assert.deepEqual(client.gets, ["clusters/c1-kubeconfig"]);
  });

  it("reads readiness from v1beta1's controlPlaneReady, v1beta2's initialization, or a ControlPlaneReady condition", () => {
    const ready = (status: CapiClusterObject["status"]) => controlPlaneReady(capiCluster(status, "1"));
    assert.equal(ready({ controlPlaneReady: true }), true);
    assert.equal(ready({ initialization: { controlPlaneInitialized: true } }), true);
    assert.equal(ready({ conditions: [{ type: "ControlPlaneReady", status: "True" }] }), true);
    assert.equal(ready({ conditions: [{ type: "ControlPlaneReady", status: "False" }] }), false);
    assert.equal(ready(undefined), false);
  });
});
