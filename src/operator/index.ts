/**
 * @module operator
 *
 * An operator declared once with {@link defineOperator} — name, kinds, and a `setup` that builds
 * its controllers — from which kubeloop runs it ({@link runOperator}, `kubeloop run`) and `kubeloop/generate` derives
 * its deployment (`kubeloop generate`): CRDs from the kinds' schemas, RBAC
 * from what the controllers declare they watch and own, a hardened Deployment. {@link installCrds}
 * (`kubeloop install`) applies its CRDs and waits until they are served.
 *
 * Not a place for reconcile logic: that lives in the controllers `setup` builds.
 *
 * @example
 * ```ts
 * // src/operator.ts of an operator project
 * export default defineOperator({
 *   name: "widgets",
 *   kinds: [Widget],
 *   setup: (manager) => void controller(manager).for(Widget).owns(ConfigMap).reconcile(reconcileWidget),
 * });
 * ```
 */
export { CrdNotEstablishedError, type InstallCrdsOptions, installCrds } from "./install.ts";
export { loadOperator, OperatorLoadError } from "./load.ts";
export {
  defineOperator,
  type Operator,
  type OperatorDefinition,
  type RunOptions,
  runOperator,
} from "./operator.ts";
