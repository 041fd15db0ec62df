/**
 * @module kubeloop
 *
 * Kubernetes operators in TypeScript. The root holds what an operator author uses daily: kinds
 * defined with zod (`defineKind`, `z`) and their condition sets, `defineOperator`, the controller
 * builder and what a reconciler returns or throws, the manager, the client and the errors a
 * reconciler catches, object types and built-in kinds, owned children, finalizers and owner
 * references, and the status writer. Everything else has its own subpath, one per concept:
 * `kubeloop/api`, `kubeloop/client`, `kubeloop/watch`, `kubeloop/cache`, `kubeloop/queue`,
 * `kubeloop/controller`, `kubeloop/manager`, `kubeloop/endpoints`, `kubeloop/election`, `kubeloop/status`,
 * `kubeloop/ownership`, `kubeloop/events`, `kubeloop/schema`, `kubeloop/typegen`, `kubeloop/generate`, `kubeloop/sharding`, `kubeloop/shards`,
 * `kubeloop/operator`, `kubeloop/webhook`, `kubeloop/clock`, `kubeloop/errors`, `kubeloop/cluster` (the local control
 * plane), `kubeloop/testing` (the end-to-end kit), `kubeloop/testing/proxy` (the fault proxy) and
 * `kubeloop/testing/conformance` (the conformance kit).
 *
 * @example
 * ```ts
 * import { ConfigMap, controller, defineKind, defineOperator, ensureChild, z } from "kubeloop";
 *
 * const Widget = defineKind({
 *   group: "example.com",
 *   version: "v1",
 *   kind: "Widget",
 *   scope: "Namespaced",
 *   spec: z.object({ message: z.string() }),
 * });
 *
 * export default defineOperator({
 *   name: "widgets",
 *   kinds: [Widget],
 *   setup: (manager) =>
 *     void controller(manager)
 *       .for(Widget)
 *       .owns(ConfigMap)
 *       .reconcile(async (ctx) => {
 *         const widget = ctx.object;
 *         if (!widget) return; // deleted: the ConfigMap is garbage-collected
 *         await ensureChild(ctx, widget, ConfigMap, {
 *           apiVersion: "v1",
 *           kind: "ConfigMap",
 *           metadata: { name: widget.metadata.name, namespace: widget.metadata.namespace },
 *           data: { message: widget.spec.message },
 *         });
 *       }),
 * });
 * ```
 */
export { z } from "zod";
export {
  ConfigMap,
  type ConfigMapObject,
  Deployment,
  type DeploymentObject,
  Event,
  type EventObject,
  type InputOf,
  Job,
  type JobObject,
  type KubeObject,
  keyOf,
  Namespace,
  type NamespaceObject,
  type ObjectKey,
  type ObjectMeta,
  type ObjectOf,
  objectKey,
  Pod,
  type PodObject,
  type ResourceType,
  Secret,
  type SecretObject,
  Service,
  ServiceAccount,
  type ServiceAccountObject,
  type ServiceObject,
} from "./api/index.ts";
export {
  AlreadyExistsError,
  ApiError,
  Client,
  ConflictError,
  ForbiddenError,
  InvalidError,
  NotFoundError,
} from "./client/index.ts";
export {
  Action,
  type ControllerHost,
  controller,
  generationChanged,
  type MapFn,
  type Predicate,
  type ReconcileContext,
  type Reconciler,
  TerminalError,
} from "./controller/index.ts";
export { KubeloopError } from "./errors/index.ts";
export {
  Manager,
  type ManagerOptions,
  parseEndpointFlags,
  parseOperatorFlags,
  runManager,
} from "./manager/index.ts";
export { defineOperator, type Operator, runOperator } from "./operator/index.ts";
export {
  AlreadyOwnedError,
  ChildConflictError,
  controllerOf,
  ensureChild,
  isControlledBy,
  setControllerReference,
  withFinalizer,
} from "./ownership/index.ts";
export { defineKind, immutable, withRules } from "./schema/index.ts";
export {
  type Condition,
  defineConditionSet,
  findCondition,
  isTrue,
  kstatus,
  setCondition,
  updateStatus,
  writeStatus,
} from "./status/index.ts";
