/**
 * The worker's command line, run with the real Artillery CLI (from the npm registry, at the version
 * of the default worker image) against a local HTTP server: proof that the arguments the operator
 * puts in its Job find the script where the ConfigMap volume puts it, and that the load is sent.
 * The kubelet's part is played by the test: the ConfigMap's keys written under the volume's
 * mountPath (re-rooted in a temporary directory), the container's environment with its
 * downward-API values, and the image's entrypoint, which is `artillery`.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type TestContext, test } from "node:test";
import { promisify } from "node:util";
import { ConfigMap, Job } from "kubeloop";
import type { Container, PodSpec } from "kubeloop/api";
import { ensureArtillery } from "../artillery.ts";
import { createLoadTest, eventually, startOperator, testClient } from "./harness.ts";

const run = promisify(execFile);

/** An HTTP server on loopback that counts the requests it answers. */
async function countingServer(t: TestContext): Promise<{ port: number; served: () => number }> {
  let served = 0;
  const server = createServer((_, res) => {
    served++;
    res.end("ok");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise((resolve) => server.close(resolve)));
  return { port: (server.address() as { port: number }).port, served: () => served };
}

/** An Artillery script sending 10 requests in 2 s to `port`. */
function script(port: number): string {
  return [
    "config:",
    `  target: "http://127.0.0.1:${port}"`,
    "  phases:",
    "    - duration: 2",
    "      arrivalRate: 5",
    "scenarios:",
    "  - flow:",
    "      - get:",
    '          url: "/hello"',
    "",
  ].join("\n");
}

/** Writes each ConfigMap volume's keys under `root` + its mountPath; resolves with the mount paths. */
async function projectVolumes(root: string, pod: PodSpec, container: Container, namespace: string) {
  const client = await testClient();
  const mounts: string[] = [];
  for (const mount of container.volumeMounts ?? []) {
    const source = pod.volumes?.find((v) => v.name === mount.name)?.configMap;
    assert.ok(source?.name, `volume ${mount.name} is a ConfigMap`);
    const { data } = await client.get(ConfigMap, source.name, { namespace });
    for (const [key, value] of Object.entries(data ?? {})) {
      mkdirSync(dirname(join(root, mount.mountPath, key)), { recursive: true });
      writeFileSync(join(root, mount.mountPath, key), value);
    }
    mounts.push(mount.mountPath);
  }
  return mounts;
}

/** The container's environment as the kubelet sets it for the first worker pod. */
function environmentOf(
  container: Container,
  pod: { name: string; namespace: string },
): Record<string, string> {
  const field = (path: string) => {
    if (path === "metadata.name") return pod.name;
    if (path === "metadata.namespace") return pod.namespace;
    if (/job-completion-index/.test(path)) return "0";
    assert.fail(`no stand-in for the downward-API field ${path}`);
  };
  return Object.fromEntries(
    (container.env ?? []).map((e) => {
      if (e.value !== undefined || !e.valueFrom) return [e.name, e.value ?? ""];
      assert.ok(e.valueFrom.fieldRef, `${e.name}: only literal and downward-API values are expected`);
      return [e.name, field((e.valueFrom.fieldRef as { fieldPath: string }).fieldPath)];
    }),
  );
}

test("a worker's command line, run with the real Artillery CLI, finds its script and sends the load", {
  timeout: 900_000,
}, async (t) => {
  const artillery = await ensureArtillery();
  const target = await countingServer(t);
  const { namespace } = await startOperator(t);
  const client = await testClient();
  const data = { "test-script.yaml": script(target.port) };
  await client.create(ConfigMap, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "real-script", namespace },
    data,
  });
  await createLoadTest(
    namespace,
    "real",
    { count: 1, testScript: { config: { configMap: "real-script" } } },
    { script: false },
  );
  const job = await eventually(() => client.get(Job, "real", { namespace }), { what: "the LoadTest's Job" });

  const pod = job.spec?.template.spec;
  assert.ok(pod, "the Job has a pod template");
  const [container] = pod.containers;
  assert.ok(container?.args, "the worker container has args");
  const root = mkdtempSync(join(tmpdir(), "kubeloop-worker-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const mounts = await projectVolumes(root, pod, container, namespace);
  const args = container.args.map((arg) =>
    mounts.some((m) => arg.startsWith(`${m}/`)) ? join(root, arg) : arg,
  );
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: root,
    ARTILLERY_DISABLE_TELEMETRY: "true", // this machine has no internet; the Job's own value, if any, wins
    ...environmentOf(container, { name: `${job.metadata.name}-0-x7k2p`, namespace }),
  };
  const { stdout } = await run(artillery, args, { env, timeout: 120_000, maxBuffer: 16 << 20 });
  t.diagnostic(`artillery ${container.args.join(" ")} → ${target.served()} requests served`);
  assert.match(stdout, /http\.requests: \.+ 10\b/, `Artillery reports the 10 requests it sent:\n${stdout}`);
  assert.equal(target.served(), 10, "the local server answered each of them");
});
