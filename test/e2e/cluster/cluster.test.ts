import assert from "node:assert/strict";
import { test } from "node:test";
import { eventually, installOpenCrd, kubectl, kubectlJson, testNamespace } from "../support.ts";

interface Item {
  metadata: { name: string; uid: string; annotations?: Record<string, string> };
  status?: Record<string, unknown> & { conditions?: { type: string; status: string }[] };
}

const pause = "registry.k8s.io/pause:3.10";

function job(
  name: string,
  opts: { completions: number; annotations?: Record<string, string>; indexed?: boolean },
) {
  return JSON.stringify({
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name },
    spec: {
      completions: opts.completions,
      parallelism: opts.completions,
      backoffLimit: 0,
      ...(opts.indexed
        ? { completionMode: "Indexed", backoffLimitPerIndex: 0, maxFailedIndexes: opts.completions }
        : {}),
      template: {
        metadata: { annotations: opts.annotations ?? {} },
        spec: { restartPolicy: "Never", containers: [{ name: "worker", image: pause }] },
      },
    },
  });
}

const hasCondition = (item: Item, type: string) =>
  item.status?.conditions?.some((c) => c.type === type && c.status === "True") ?? false;

test("the apiserver reports v1.36 and the built kubectl lists the kwok nodes as Ready", async () => {
  const version = await kubectlJson<{ serverVersion: { gitVersion: string } }>(["version"]);
  assert.match(version.serverVersion.gitVersion, /^v1\.36\.\d+$/);
  const nodes = await kubectlJson<{ items: Item[] }>(["get", "nodes"]);
  assert.ok(nodes.items.length >= 1, "at least one kwok node");
  for (const node of nodes.items) assert.ok(hasCondition(node, "Ready"), `${node.metadata.name} is Ready`);
  const table = (await kubectl(["get", "nodes", "--no-headers"])).stdout;
  assert.match(table, /kwok-node-0\s+Ready/);
});

test("a Deployment with 3 replicas gets 3 available pods", async (t) => {
  const ns = await testNamespace(t);
  await kubectl(["-n", ns, "create", "deployment", "web", `--image=${pause}`, "--replicas=3"]);
  const deployment = await eventually(
    async () => {
      const d = await kubectlJson<Item>(["-n", ns, "get", "deployment", "web"]);
      return d.status?.availableReplicas === 3 ? d : undefined;
    },
    { what: "3 available replicas", timeoutMs: 60_000 },
  );
  assert.ok(hasCondition(deployment, "Available"));
  const pods = await kubectlJson<{ items: Item[] }>(["-n", ns, "get", "pods", "-l", "app=web"]);
  assert.equal(pods.items.filter((p) => p.status?.phase === "Running").length, 3);
});

test("a Job with completions=3 and parallelism=3 reaches Complete", async (t) => {
  const ns = await testNamespace(t);
  await kubectl(["-n", ns, "apply", "-f", "-"], { input: job("three", { completions: 3 }) });
  const done = await eventually(
    async () => {
      const j = await kubectlJson<Item>(["-n", ns, "get", "job", "three"]);
      return hasCondition(j, "Complete") ? j : undefined;
    },
    { what: "Job Complete", timeoutMs: 60_000 },
  );
  assert.equal(done.status?.succeeded, 3);
  assert.equal(done.status?.failed ?? 0, 0);
});

test("a Job whose pods carry the failure annotation records failed pods with the chosen exit code", async (t) => {
  const ns = await testNamespace(t);
  const annotations = { "kubeloop.dev/fail-exit-code": "3" };
  await kubectl(["-n", ns, "apply", "-f", "-"], { input: job("doomed", { completions: 1, annotations }) });
  const failed = await eventually(
    async () => {
      const j = await kubectlJson<Item>(["-n", ns, "get", "job", "doomed"]);
      return hasCondition(j, "Failed") ? j : undefined;
    },
    { what: "Job Failed", timeoutMs: 60_000 },
  );
  assert.equal(failed.status?.failed, 1);
  const pods = await kubectlJson<{ items: { status: { phase: string; containerStatuses: unknown[] } }[] }>([
    "-n",
    ns,
    "get",
    "pods",
    "-l",
    "job-name=doomed",
  ]);
  assert.equal(pods.items[0]?.status.phase, "Failed");
  assert.match(JSON.stringify(pods.items[0]?.status.containerStatuses), /"exitCode":3/);
});

test("an Indexed Job fails only the workers whose index is listed, and the others succeed", async (t) => {
  const ns = await testNamespace(t);
  const annotations = { "kubeloop.dev/fail-exit-code": "2", "kubeloop.dev/fail-indexes": "1" };
  await kubectl(["-n", ns, "apply", "-f", "-"], {
    input: job("mixed", { completions: 3, annotations, indexed: true }),
  });
  const finished = await eventually(
    async () => {
      const j = await kubectlJson<Item>(["-n", ns, "get", "job", "mixed"]);
      return hasCondition(j, "Failed") || hasCondition(j, "Complete") ? j : undefined;
    },
    { what: "Job finished", timeoutMs: 60_000 },
  );
  assert.equal(finished.status?.succeeded, 2);
  assert.equal(finished.status?.failed, 1);
  assert.equal(finished.status?.failedIndexes, "1");
});

test("garbage collection deletes a ConfigMap whose owner, a custom resource, was deleted", async (t) => {
  const ns = await testNamespace(t);
  await installOpenCrd("e2e.kubeloop.dev", "Trinket", "trinkets");
  const trinket = {
    apiVersion: "e2e.kubeloop.dev/v1",
    kind: "Trinket",
    metadata: { name: "owner", namespace: ns },
  };
  await eventually(() => kubectl(["apply", "-f", "-"], { input: JSON.stringify(trinket) }), {
    what: "Trinket created",
  });
  const owner = await kubectlJson<Item>(["-n", ns, "get", "trinket", "owner"]);
  const child = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: "child",
      namespace: ns,
      ownerReferences: [
        { apiVersion: "e2e.kubeloop.dev/v1", kind: "Trinket", name: "owner", uid: owner.metadata.uid },
      ],
    },
    data: { a: "b" },
  };
  await kubectl(["apply", "-f", "-"], { input: JSON.stringify(child) });
  await kubectl(["-n", ns, "delete", "trinket", "owner"]);
  await eventually(
    async () => (await kubectl(["-n", ns, "get", "configmap", "child"], { allowFail: true })).code !== 0,
    { what: "the owned ConfigMap to be garbage collected", timeoutMs: 120_000, intervalMs: 1000 },
  );
});
