/**
 * @module operator
 *
 * An operator declared once with {@link defineOperator} — name, kinds, and a `setup` that builds
 * its controllers — from which kubeloop runs it ({@link runOperator}, `kubeloop run`) and `kubeloop/generate` derives
 * its deployment (`kubeloop generate`): CRDs from the kinds' schemas, RBAC
 * from what the controllers declare they watch and own, a hardened Deployment. {@link installOperator}
 * (`kubeloop install`) applies its CRDs, waits until they are served, then applies the other
 * objects it ships ({@link applyManifests}); after a kind's storage version changed,
 * {@link migrateStoredVersions} (`kubeloop migrate`) rewrites its objects in the new one.
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
export {
  BUNDLE_TARGET,
  type Bundle,
  type BundleOptions,
  bundleOperator,
  DEFAULT_BUNDLE,
  DEFAULT_ENTRY,
  OperatorBuildError,
} from "./bundle.ts";
export {
  applyManifests,
  CrdNotEstablishedError,
  type InstallCrdsOptions,
  type InstalledOperator,
  installCrds,
  installOperator,
  type WaitEstablishedOptions,
  waitEstablished,
} from "./install.ts";
export { loadOperator, OperatorLoadError, operatorOf } from "./load.ts";
export {
  migrateStoredVersions,
  type StorageMigration,
  StorageMigrationError,
  staleStoredVersions,
} from "./migrate.ts";
export {
  defineOperator,
  type Operator,
  type OperatorDefinition,
  type RunOptions,
  runOperator,
} from "./operator.ts";
export { shardLabelWebhooks } from "./shard-label-webhooks.ts";
