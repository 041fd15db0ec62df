/** The App controller of docs/watching-references.md. */
// #region references-controller
import {
  ConfigMap,
  type ConfigMapObject,
  type ControllerHost,
  controller,
  keyOf,
  objectKey,
  type Predicate,
  type ReconcileContext,
  Secret,
  type SecretObject,
  writeStatus,
} from "kubeloop";
import { App, AppConditions, type AppObject } from "./api.ts";

const BY_CONFIGMAP = "configmap";
const BY_SECRET = "secret";

/** Only a change of a Secret's data can change an App: metadata-only updates are let go. */
const secretDataChanged: Predicate<SecretObject> = {
  update: (old, secret) => JSON.stringify(old.data) !== JSON.stringify(secret.data),
};

export function appController(host: ControllerHost) {
  const apps = host.cache.informer(App);
  // An index maps one App to the keys of what it references; byIndex answers the reverse.
  apps.addIndexer(BY_CONFIGMAP, (app) =>
    app.spec.configMaps.map((n) => objectKey(app.metadata.namespace, n)),
  );
  apps.addIndexer(BY_SECRET, (app) => [objectKey(app.metadata.namespace, app.spec.credentials)]);
  const appsReferencing = (index: string) => (obj: ConfigMapObject | SecretObject) =>
    apps.store.byIndex(index, keyOf(obj)).map(keyOf);
  return controller(host)
    .for(App)
    .watches(ConfigMap, appsReferencing(BY_CONFIGMAP))
    .watches(Secret, appsReferencing(BY_SECRET), { predicates: [secretDataChanged] })
    .reconcile(reconcileApp);
}
// #endregion

// #region references-reconcile
export async function reconcileApp(ctx: ReconcileContext<AppObject>) {
  const app = ctx.object;
  if (!app) return;
  const namespace = app.metadata.namespace;
  const configMaps = await ctx.cache.reader(ConfigMap); // the informer .watches(ConfigMap) started
  const secrets = await ctx.cache.reader(Secret);
  const missing = [
    ...app.spec.configMaps.filter((name) => !configMaps.get(name, namespace)).map((n) => `ConfigMap ${n}`),
    ...(secrets.get(app.spec.credentials, namespace) ? [] : [`Secret ${app.spec.credentials}`]),
  ];
  await writeStatus(ctx, App, app, AppConditions, (draft) => {
    draft.set(
      "ReferencesResolved",
      missing.length === 0
        ? { status: "True", reason: "Resolved" }
        : { status: "False", reason: "NotFound", message: `not found: ${missing.join(", ")}` },
    );
    return {};
  });
  // Nothing to requeue: creating a missing ConfigMap or Secret queues this App through the watch.
}
// #endregion
