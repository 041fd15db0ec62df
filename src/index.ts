/**
 * @module kubeloop
 *
 * Kubernetes operators in TypeScript. The root entry holds what writing an operator needs — the
 * manager and `defineOperator`, the controller builder, reconciler types and actions, the client
 * and its errors, object types and built-in kinds, `defineKind` (and `z`, the zod it is built on),
 * conditions and the status writer, finalizers and owned children. The machinery has its own
 * subpaths (`kubeloop/cache`, `kubeloop/watch`, `kubeloop/queue`, `kubeloop/events`,
 * `kubeloop/election`, `kubeloop/generate`, `kubeloop/cluster`, `kubeloop/testing`, ...).
 *
 * @example
 * ```ts
 * import { ConfigMap, controller, defineKind, Manager, runManager } from "kubeloop";
 * import { z } from "zod";
 *
 * const Widget = defineKind({ group: "example.com", version: "v1", kind: "Widget", scope: "Namespaced",
 *   spec: z.object({ message: z.string() }) });
 * const manager = await Manager.create({ name: "widgets" });
 * controller(manager).for(Widget).owns(ConfigMap).reconcile(async (req, ctx) => {
 *   // read ctx.object, converge the ConfigMap, report conditions
 * });
 * await runManager(manager);
 * ```
 */
export { z } from "zod";
export * from "./api/index.ts";
export * from "./client/index.ts";
export * from "./controller/index.ts";
export { KubeloopError } from "./errors/index.ts";
export * from "./manager/index.ts";
export * from "./operator/index.ts";
export * from "./ownership/index.ts";
export * from "./schema/index.ts";
export * from "./status/index.ts";
