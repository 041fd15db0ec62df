import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConfigMap, type KubeObject, Secret } from "../../../src/api/index.ts";
import { undeclaredOutputs } from "../../../src/testing/conformance/internal/controlled.ts";

const parcel = (name: string, uid: string): KubeObject => ({
  apiVersion: "conformance.kubeloop.dev/v1",
  kind: "Parcel",
  metadata: { name, namespace: "ns", uid },
});

const child = (apiVersion: string, kind: string, name: string, controllerUid?: string): KubeObject => ({
  apiVersion,
  kind,
  metadata: {
    name,
    namespace: "ns",
    ownerReferences: controllerUid
      ? [
          {
            apiVersion: "conformance.kubeloop.dev/v1",
            kind: "Parcel",
            name: "p",
            uid: controllerUid,
            controller: true,
          },
        ]
      : undefined,
  },
});

const primaries = [parcel("signed", "u1"), parcel("plain", "u2")];

describe("undeclaredOutputs", () => {
  it("groups the objects a primary controls by kind when the kind is not declared", () => {
    const found = undeclaredOutputs(
      [
        child("v1", "ServiceAccount", "signed-courier", "u1"),
        child("apps/v1", "Deployment", "plain-web", "u2"),
        child("v1", "ServiceAccount", "plain-courier", "u2"),
      ],
      primaries,
      [ConfigMap, Secret],
    );
    assert.deepEqual(found, [
      { apiVersion: "apps/v1", kind: "Deployment", objects: ["Deployment/plain-web (of Parcel/plain)"] },
      {
        apiVersion: "v1",
        kind: "ServiceAccount",
        objects: [
          "ServiceAccount/signed-courier (of Parcel/signed)",
          "ServiceAccount/plain-courier (of Parcel/plain)",
        ],
      },
    ]);
  });

  it("leaves out declared kinds, uncontrolled objects and objects another owner controls", () => {
    const notController = child("v1", "ServiceAccount", "shared", undefined);
    notController.metadata.ownerReferences = [
      { apiVersion: "conformance.kubeloop.dev/v1", kind: "Parcel", name: "signed", uid: "u1" },
    ];
    const found = undeclaredOutputs(
      [
        child("v1", "ConfigMap", "signed-label", "u1"),
        child("v1", "ServiceAccount", "loose"),
        notController,
        child("v1", "ServiceAccount", "foreign", "someone-else"),
        // A primary controlled by another primary is a primary, not an output.
        { ...parcel("nested", "u3"), metadata: { ...child("", "", "nested", "u1").metadata, uid: "u3" } },
      ],
      primaries,
      [ConfigMap],
    );
    assert.deepEqual(found, []);
  });

  it("tells same-named kinds of different groups apart", () => {
    const found = undeclaredOutputs([child("example.com/v1", "ConfigMap", "lookalike", "u1")], primaries, [
      ConfigMap,
    ]);
    assert.deepEqual(
      found.map((f) => `${f.apiVersion}/${f.kind}`),
      ["example.com/v1/ConfigMap"],
    );
  });
});
