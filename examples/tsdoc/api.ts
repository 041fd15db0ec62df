import { Client, defineKind, type InputOf, z } from "kubeloop";

const Widget = defineKind({
  group: "example.com",
  version: "v1",
  kind: "Widget",
  scope: "Namespaced",
  spec: z.object({ replicas: z.int().min(0).default(1) }),
});
const { apiVersion, kind } = Widget;
const client = await Client.load();

// #region InputOf
const widget: InputOf<typeof Widget> = { apiVersion, kind, metadata: { name: "w" }, spec: {} };
const created = await client.create(Widget, widget); // ObjectOf<typeof Widget>: spec.replicas set
// #endregion

console.log(created.spec.replicas);
