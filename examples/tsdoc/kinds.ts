import { defineKind, type ObjectOf, z } from "kubeloop";

/** The Widget the TSDoc examples create, validate and default: `spec.replicas` defaults to 1. */
export const Widget = defineKind({
  group: "example.com",
  version: "v1",
  kind: "Widget",
  scope: "Namespaced",
  spec: z.object({ replicas: z.int().min(0).default(1) }),
});
export type WidgetObject = ObjectOf<typeof Widget>;
