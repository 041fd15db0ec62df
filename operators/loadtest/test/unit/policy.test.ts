import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  canonicalRepository,
  DEFAULT_POLICY,
  imageAllowed,
  policyViolation,
  workerPolicyFrom,
} from "../../policy.ts";

describe("canonicalRepository", () => {
  for (const [image, repository] of [
    ["artilleryio/artillery:2.0.23", "docker.io/artilleryio/artillery"],
    ["docker.io/artilleryio/artillery", "docker.io/artilleryio/artillery"],
    ["index.docker.io/artilleryio/artillery@sha256:abc", "docker.io/artilleryio/artillery"],
    ["nginx", "docker.io/library/nginx"],
    ["docker.io/nginx:1.27", "docker.io/library/nginx"],
    ["registry:5000/team/artillery:1", "registry:5000/team/artillery"],
    ["localhost/artillery", "localhost/artillery"],
    ["ghcr.io/org/artillery:2@sha256:abc", "ghcr.io/org/artillery"],
  ] as const) {
    it(`${image} is ${repository}`, () => assert.equal(canonicalRepository(image), repository));
  }
});

describe("imageAllowed", () => {
  it("allows the listed repositories at any tag or digest, and nothing else", () => {
    const allowed = ["artilleryio/artillery", "registry.example.com/perf/*"];
    for (const image of [
      "artilleryio/artillery",
      "artilleryio/artillery:2.0.21",
      "docker.io/artilleryio/artillery@sha256:abc",
      "registry.example.com/perf/artillery:1",
      "registry.example.com/perf/team/artillery",
    ])
      assert.ok(imageAllowed(image, allowed), image);
    for (const image of [
      "attacker.example/steal:latest",
      "artilleryio/artillery-evil",
      "evil/artilleryio/artillery",
      "registry.example.com/perfx/artillery",
      "registry.example.com/perf",
      " artilleryio/artillery",
    ])
      assert.ok(!imageAllowed(image, allowed), image);
  });

  it("allows any image with *", () => assert.ok(imageAllowed("anything/at:all", ["*"])));

  it("reads a one-segment prefix as a Docker Hub namespace, not under library/", () => {
    assert.ok(imageAllowed("artilleryio/artillery:2", ["artilleryio/*"]));
    assert.ok(imageAllowed("docker.io/artilleryio/artillery", ["artilleryio/*"]));
    assert.ok(!imageAllowed("artillery", ["artilleryio/*"]));
    assert.ok(imageAllowed("nginx", ["docker.io/*"]));
    assert.ok(!imageAllowed("ghcr.io/org/x", ["docker.io/*"]));
  });
});

describe("workerPolicyFrom", () => {
  it("defaults to the Artillery images and no references", () => {
    assert.deepEqual(workerPolicyFrom({}), DEFAULT_POLICY);
    assert.deepEqual(workerPolicyFrom({ LOADTEST_ALLOWED_IMAGES: " , " }), DEFAULT_POLICY);
  });

  it("reads a comma-separated list and true", () => {
    const policy = workerPolicyFrom({
      LOADTEST_ALLOWED_IMAGES: "a/b, registry.example/x/*",
      LOADTEST_ALLOW_VALUE_FROM: "true",
    });
    assert.deepEqual(policy, { allowedImages: ["a/b", "registry.example/x/*"], allowValueFrom: true });
  });
});

describe("policyViolation", () => {
  const secret = { name: "TOKEN", valueFrom: { secretKeyRef: { name: "db", key: "password" } } };
  const fieldRef = { name: "NODE", valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } };

  it("refuses a confused deputy's image and Secret reference, naming the field and the fix", () => {
    const image = policyViolation({ image: "attacker.example/steal:latest" }, DEFAULT_POLICY);
    assert.match(image ?? "", /^spec\.image attacker\.example\/steal:latest .*LOADTEST_ALLOWED_IMAGES$/);
    const env = policyViolation({ image: "artilleryio/artillery:2.0.23", env: [secret] }, DEFAULT_POLICY);
    assert.match(env ?? "", /^spec\.env TOKEN reads a ConfigMap or Secret .*LOADTEST_ALLOW_VALUE_FROM=true$/);
    const configMap = { name: "X", valueFrom: { configMapKeyRef: { name: "c", key: "k" } } };
    assert.ok(policyViolation({ image: "artilleryio/artillery", env: [configMap] }, DEFAULT_POLICY));
  });

  it("allows the default image, plain values and field references; references when the administrator does", () => {
    const env = [{ name: "A", value: "1" }, fieldRef];
    assert.equal(policyViolation({ image: "artilleryio/artillery:2.0.23", env }, DEFAULT_POLICY), undefined);
    const open = { ...DEFAULT_POLICY, allowValueFrom: true };
    assert.equal(policyViolation({ image: "artilleryio/artillery", env: [secret] }, open), undefined);
  });
});
