// #region schema
import { defineKind, immutable, z } from "kubeloop";
import { crdYaml } from "kubeloop/schema";

export const Widget = defineKind({
  group: "example.com",
  version: "v1",
  kind: "Widget",
  scope: "Namespaced",
  spec: z.object({
    size: z.enum(["small", "large"]).default("small"),
    replicas: z.int().min(0).max(10),
    owner: immutable(z.string().min(1)),
  }),
  status: z.object({ readyReplicas: z.int().optional() }),
  printerColumns: [{ name: "Replicas", type: "integer", jsonPath: ".spec.replicas" }],
});

const spec = Widget.parseSpec({ replicas: 2, owner: "me" }); // typed, defaults applied
const yaml = crdYaml([Widget]);
// #endregion

console.log(spec.size, yaml);
