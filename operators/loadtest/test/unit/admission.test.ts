import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "kubeloop";
import { seededRandom } from "../../../../src/testing/proxy/match.ts";
import { ADMISSION_POLICY_NAME, imagePattern, workerAdmissionPolicy } from "../../admission.ts";
import { DEFAULT_POLICY, imageAllowed } from "../../policy.ts";

/** Allowed-image entries of every shape: Docker Hub with and without registry or `library/`, others, prefixes. */
const entries = [
  "artilleryio/artillery",
  "docker.io/artilleryio/artillery",
  "nginx",
  "index.docker.io/library/nginx",
  "registry.example.com:5000/perf/artillery",
  "localhost/artillery",
  "registry.example.com/perf/*",
  "artilleryio/*",
  "docker.io/artilleryio/*",
  "ghcr.io/org/*",
];

/** Image references, allowed by some entries and refused by others. */
const images = [
  "artilleryio/artillery",
  "artilleryio/artillery:2.0.23",
  "artilleryio/artillery:2.0.23@sha256:0123abcd",
  "artilleryio/artillery@sha256:0123abcd",
  "docker.io/artilleryio/artillery:latest",
  "index.docker.io/artilleryio/artillery",
  "registry-1.docker.io/artilleryio/artillery",
  "artilleryio/artillery-evil",
  "artilleryio/artillery/x",
  "evil/artilleryio/artillery",
  "attacker.example/artilleryio/artillery",
  "attacker.example/steal:latest",
  "nginx",
  "nginx:1.27",
  "library/nginx",
  "docker.io/nginx",
  "index.docker.io/library/nginx@sha256:0123abcd",
  "nginx.example/nginx",
  "nginxx",
  "registry.example.com:5000/perf/artillery:1",
  "registry.example.com:5000/perf/artillery",
  "registry.example.com/perf/artillery:1",
  "registry.example.com/perf/team/artillery@sha256:0123abcd",
  "registry.example.com/perf",
  "registry.example.com/perfx/artillery",
  "registry.example.comX/perf/artillery",
  "localhost/artillery:dev",
  "localhost:5000/artillery",
  "ghcr.io/org/artillery:2@sha256:0123abcd",
  "ghcr.io/org",
  "ghcr.io/orgx/artillery",
  "artilleryio/artillery:tag/with-slash",
  "artilleryio/artillery:a:b",
  "artilleryio/artillery@sha256:ab/cd@ef",
];

/** Picks one of `choices` with `random`. */
const pick = <T>(random: () => number, choices: readonly T[]): T =>
  choices[Math.floor(random() * choices.length)] as T;

/** Registries an image or an entry may name: none, Docker Hub's, with ports, look-alikes. */
const registries = [
  "",
  "docker.io/",
  "index.docker.io/",
  "registry-1.docker.io/",
  "docker.io:443/",
  "localhost/",
  "localhost:5000/",
  "registry.example.com/",
  "registry.example.com:5000/",
  "ghcr.io/",
];
/** Path segments, among them names that look like registries or Docker Hub's implicit parts. */
const segments = ["library", "nginx", "artilleryio", "artillery", "perf", "team", "docker.io", "a.b", "x:1"];

/** A repository: a registry or none, then one to three segments (a `:` only before the last). */
function randomRepository(random: () => number): string {
  const count = 1 + Math.floor(random() * 3);
  const path = Array.from({ length: count }, (_, i) =>
    pick(random, i === count - 1 ? segments.filter((s) => !s.includes(":")) : segments),
  );
  return pick(random, registries) + path.join("/");
}

/** An image reference: a repository, maybe a tag (odd ones too), maybe a digest (odd ones too). */
function randomImage(random: () => number): string {
  const tag = pick(random, ["", "", ":latest", ":2.0.23", ":a:b"]);
  const digest = pick(random, ["", "", "@sha256:0123abcd", "@sha256:ab/cd@ef"]);
  return randomRepository(random) + tag + digest;
}

/** An allowed-images entry: `*`, an exact repository (maybe tagged), or a `prefix/*`. */
function randomEntry(random: () => number): string {
  const shape = random();
  if (shape < 0.05) return "*";
  if (shape < 0.5) return randomRepository(random) + pick(random, ["", "", ":1"]);
  const prefix = randomRepository(random).split("/");
  return `${prefix.slice(0, 1 + Math.floor(random() * prefix.length)).join("/")}/*`;
}

/** The regular expressions the policy's image validation gives the apiserver (none: every image passes). */
function policyPatterns(allowedImages: readonly string[]): RegExp[] | undefined {
  const policy = workerAdmissionPolicy({ allowedImages, allowValueFrom: true }, "g");
  const expression = validationsOf(policy)[0]?.expression;
  if (expression === undefined) return undefined;
  return [...expression.matchAll(/\.matches\(("(?:[^"\\]|\\.)*")\)/g)].map(
    (match) => new RegExp(JSON.parse(match[1] as string)),
  );
}

describe("the admission policy's image check", () => {
  it("lets through exactly what imageAllowed does, for random images and allow-lists", () => {
    const random = seededRandom(20261130);
    for (let round = 0; round < 3000; round++) {
      const allowed = Array.from({ length: 1 + Math.floor(random() * 3) }, () => randomEntry(random));
      const patterns = policyPatterns(allowed);
      for (let i = 0; i < 5; i++) {
        const image = randomImage(random);
        const admitted = patterns === undefined || patterns.some((pattern) => pattern.test(image));
        assert.equal(admitted, imageAllowed(image, allowed), `${image} against ${allowed.join(", ")}`);
      }
    }
  });

  for (const entry of ["docker.io/*", "docker.io/library/*", "library/*"]) {
    it(`admits with ${entry} exactly the images imageAllowed does`, () => {
      const random = seededRandom(entry.length);
      const pattern = new RegExp(imagePattern(entry));
      for (let i = 0; i < 3000; i++) {
        const image = randomImage(random);
        assert.equal(pattern.test(image), imageAllowed(image, [entry]), `${image} against ${entry}`);
      }
      assert.ok(!pattern.test("ghcr.io/org/x:1"), `${entry} must not admit ghcr.io/org/x:1`);
    });
  }
});

describe("imagePattern", () => {
  for (const entry of entries) {
    it(`agrees with imageAllowed for ${entry}`, () => {
      const pattern = new RegExp(imagePattern(entry));
      for (const image of images)
        assert.equal(pattern.test(image), imageAllowed(image, [entry]), `${image} against ${entry}`);
    });
  }

  it("allows and refuses as the policy's examples do", () => {
    const matches = (entry: string, image: string) => new RegExp(imagePattern(entry)).test(image);
    assert.ok(matches("artilleryio/artillery", "docker.io/artilleryio/artillery@sha256:abc"));
    assert.ok(matches("nginx", "index.docker.io/library/nginx:1.27"));
    assert.ok(matches("registry.example.com/perf/*", "registry.example.com/perf/team/artillery"));
    assert.ok(!matches("artilleryio/artillery", "attacker.example/steal:latest"));
    assert.ok(!matches("registry.example.com/perf/*", "registry.example.com/perf"));
  });

  it("uses no lookaround or backreference, which RE2 lacks, and escapes the dots", () => {
    for (const entry of [...entries, "*", "docker.io/*", "docker.io/library/*", "library/*"]) {
      const pattern = imagePattern(entry);
      assert.doesNotMatch(pattern, /\(\?<?[=!]|\\[1-9k]/, pattern);
      // A dot is escaped, or inside a character class, where it is a dot.
      const outsideClasses = pattern.replace(/\[(?:[^\]\\]|\\.)*\]/g, "");
      assert.doesNotMatch(outsideClasses.replace(/\\\./g, ""), /\./, pattern);
    }
  });
});

/** The spec of a ValidatingAdmissionPolicy, as far as these tests read it. */
interface PolicySpec {
  failurePolicy: string;
  matchConstraints: { resourceRules: unknown[] };
  validations: { expression: string; messageExpression: string; reason: string }[];
}

/** The spec of the policy among `objects` (the first). */
function policySpecOf(objects: readonly KubeObject[]): PolicySpec | undefined {
  return (objects[0] as (KubeObject & { spec: PolicySpec }) | undefined)?.spec;
}

/** The validations of the policy among `objects`, none without one. */
function validationsOf(objects: readonly KubeObject[]): PolicySpec["validations"] {
  return policySpecOf(objects)?.validations ?? [];
}

describe("workerAdmissionPolicy", () => {
  const objects = workerAdmissionPolicy(DEFAULT_POLICY, "loadtest.example");
  const [policy, binding, ...more] = objects;
  const spec = policySpecOf(objects) as PolicySpec;

  it("is a policy on the creation of LoadTests of the group, failing closed, and its Deny binding", () => {
    assert.equal(more.length, 0);
    assert.equal(policy?.kind, "ValidatingAdmissionPolicy");
    assert.equal(policy?.metadata.name, ADMISSION_POLICY_NAME);
    assert.equal(spec.failurePolicy, "Fail");
    assert.deepEqual(spec.matchConstraints.resourceRules, [
      {
        apiGroups: ["loadtest.example"],
        apiVersions: ["*"],
        operations: ["CREATE"],
        resources: ["loadtests"],
      },
    ]);
    assert.deepEqual(binding, {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicyBinding",
      metadata: { name: ADMISSION_POLICY_NAME },
      spec: { policyName: ADMISSION_POLICY_NAME, validationActions: ["Deny"] },
    });
  });

  it("checks spec.image against the allowed images and spec.env for references, with the operator's messages", () => {
    const [image, env, ...others] = validationsOf(objects);
    assert.equal(others.length, 0);
    assert.equal(image?.reason, "Invalid");
    assert.equal(
      image?.expression,
      `!has(object.spec.image) || object.spec.image.matches(${JSON.stringify(imagePattern("artilleryio/artillery"))})`,
    );
    assert.match(
      image?.messageExpression ?? "",
      /^"spec\.image " \+ object\.spec\.image \+ " is not among the images this operator runs \(artilleryio\/artillery\); .*LOADTEST_ALLOWED_IMAGES"$/,
    );
    assert.equal(env?.reason, "Invalid");
    assert.match(env?.expression ?? "", /^!has\(object\.spec\.env\) \|\| !object\.spec\.env\.exists\(e, /);
    assert.match(
      env?.expression ?? "",
      /has\(e\.valueFrom\.secretKeyRef\) \|\| has\(e\.valueFrom\.configMapKeyRef\)/,
    );
    assert.match(
      env?.messageExpression ?? "",
      /^"spec\.env " \+ object\.spec\.env\.filter\(e, .*\)\[0\]\.name \+ " reads a ConfigMap or Secret .*LOADTEST_ALLOW_VALUE_FROM=true"$/,
    );
  });

  it("names the field and the allowed images in its message whatever they allow", () => {
    // A placeholder image the entries allow once left the message as the bare image.
    const policy = { allowedImages: ["docker.io/*", "library/*"], allowValueFrom: false };
    const [image] = validationsOf(workerAdmissionPolicy(policy, "g"));
    assert.equal(
      image?.messageExpression,
      `"spec.image " + object.spec.image + ${JSON.stringify(` is not among the images this operator runs (docker.io/*, library/*); use one of them, or ask the operator's administrator to add it to LOADTEST_ALLOWED_IMAGES`)}`,
    );
  });

  it("binds to the namespaces selected, under the name given", () => {
    const namespaceSelector = { matchLabels: { "kubernetes.io/metadata.name": "team" } };
    const [named, bound] = workerAdmissionPolicy(DEFAULT_POLICY, "g", {
      name: "team-policy",
      namespaceSelector,
    });
    assert.equal(named?.metadata.name, "team-policy");
    assert.deepEqual((bound as unknown as { spec: unknown }).spec, {
      policyName: "team-policy",
      validationActions: ["Deny"],
      matchResources: { namespaceSelector },
    });
  });

  it("checks only what the administrator restricts, and ships nothing when nothing is", () => {
    const fields = (allowedImages: string[], allowValueFrom: boolean) =>
      validationsOf(workerAdmissionPolicy({ allowedImages, allowValueFrom }, "g")).map(
        (v) => v.messageExpression.match(/^"(spec\.\w+) /)?.[1],
      );
    assert.deepEqual(fields(["*"], false), ["spec.env"]);
    assert.deepEqual(fields(["a/b", "c/*"], true), ["spec.image"]);
    assert.deepEqual(workerAdmissionPolicy({ allowedImages: ["*"], allowValueFrom: true }, "g"), []);
  });
});
