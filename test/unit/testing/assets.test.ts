import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { formatElapsed } from "../../../src/cluster/assets.ts";
import { ensureAssets, ToolchainError, versions } from "../../../src/cluster/index.ts";
import { cacheKey, compareVersions, components, ldflags, requiredGo } from "../../../src/cluster/versions.ts";
import { KubeloopError } from "../../../src/errors/index.ts";

function withEnv(env: Record<string, string | undefined>, fn: () => Promise<void>): Promise<void> {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete process.env[k];
  return fn().finally(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });
}

test("without Go and without KUBELOOP_ASSETS the error names every way out", async () => {
  const cache = mkdtempSync(join(tmpdir(), "kl-cache-"));
  await withEnv({ PATH: "/nonexistent", KUBELOOP_ASSETS: undefined, KUBELOOP_CACHE_DIR: cache }, async () => {
    const err = await ensureAssets(() => {}).catch((e: unknown) => e);
    assert.ok(err instanceof ToolchainError);
    assert.ok(err instanceof KubeloopError);
    assert.equal(err.code, "KL_CONTROLPLANE_TOOLCHAIN");
    assert.match(err.message, /install Go >= 1\.26/);
    assert.match(err.message, /KUBELOOP_ASSETS/);
    assert.match(err.message, /KUBECONFIG/);
  });
});

test("KUBELOOP_ASSETS is used as is, and a directory missing binaries is named with what it lacks", async () => {
  const dir = mkdtempSync(join(tmpdir(), "kl-assets-"));
  for (const c of components.filter((c) => c.name !== "kwok")) writeFileSync(join(dir, c.name), "");
  await withEnv({ KUBELOOP_ASSETS: dir }, async () => {
    const err = await ensureAssets(() => {}).catch((e: unknown) => e);
    assert.ok(err instanceof ToolchainError);
    assert.match(err.message, /lacks kwok/);
    writeFileSync(join(dir, "kwok"), "");
    const assets = await ensureAssets(() => {});
    assert.equal(assets["kube-apiserver"], join(dir, "kube-apiserver"));
  });
});

test("the cache key names every version and the Go version, and the Kubernetes binaries are stamped", () => {
  const key = cacheKey("go1.26.8");
  for (const v of [versions.kubernetes, versions.etcd, versions.kwok, "go1.26.8"])
    assert.ok(key.includes(v), key);
  assert.notEqual(cacheKey("go1.27.0"), key);
  const apiserver = components.find((c) => c.name === "kube-apiserver");
  assert.ok(apiserver);
  assert.match(
    ldflags(apiserver),
    new RegExp(`k8s.io/component-base/version.gitVersion=${versions.kubernetes}`),
  );
  assert.match(ldflags(apiserver), /k8s.io\/client-go\/pkg\/version.gitMinor=36/);
});

test("the Go the control plane needs is the highest go directive of its modules, compared numerically", () => {
  // kubernetes' and kwok's go.mod say 1.26.0, etcd's 1.24.0 (update this when controlplane/ moves on).
  assert.equal(requiredGo, "1.26.0");
  assert.ok(compareVersions("1.26.8", requiredGo) > 0);
  assert.ok(compareVersions("1.9.1", "1.26") < 0, "1.9 is older than 1.26");
  assert.equal(compareVersions("1.26", "1.26.0"), 0);
});

test("elapsed times read as seconds or minutes", () => {
  assert.equal(formatElapsed(12_400), "12s");
  assert.equal(formatElapsed(65_000), "1m05s");
});
