/**
 * The small operator whose RBAC the tests derive from its controller: a `Sprocket` owns a
 * ConfigMap mirroring `spec.message`, keeps a finalizer whose cleanup deletes that ConfigMap,
 * writes a `Ready` condition and `observedGeneration` through the status subresource, and records
 * an event for every change it makes.
 */
import { ConfigMap, type ConfigMapObject } from "../../../src/api/index.ts";
import { NotFoundError } from "../../../src/client/index.ts";
import { type ControllerHost, controller, type ReconcileContext } from "../../../src/controller/index.ts";
import { ensureChild, withFinalizer } from "../../../src/ownership/index.ts";
import { type Condition, setCondition } from "../../../src/status/index.ts";
import { Sprocket, type SprocketObject } from "./kinds.ts";

/** The finalizer guarding a Sprocket's cleanup. */
export const FINALIZER = "schema.e2e.kubeloop.dev/cleanup";

/** The name of a Sprocket's ConfigMap. */
export function configMapName(sprocketName: string): string {
  return `${sprocketName}-message`;
}

/** Cleanups that completed, by Sprocket name. */
export type CleanupLog = string[];

type Context = ReconcileContext<SprocketObject>;

function desiredConfigMap(sprocket: SprocketObject): ConfigMapObject {
  return {
    apiVersion: ConfigMap.apiVersion,
    kind: ConfigMap.kind,
    metadata: { name: configMapName(sprocket.metadata.name ?? ""), namespace: sprocket.metadata.namespace },
    data: { message: sprocket.spec.message },
  };
}

async function converge(ctx: Context, sprocket: SprocketObject): Promise<void> {
  const desired = desiredConfigMap(sprocket);
  const name = desired.metadata.name as string;
  const result = await ensureChild(ctx, sprocket, ConfigMap, desired);
  if (result === "created") ctx.recorder.normal(sprocket, "ConfigMapCreated", "Create", `created ${name}`);
  if (result === "updated") ctx.recorder.normal(sprocket, "ConfigMapUpdated", "Update", `updated ${name}`);
  await writeStatus(ctx, sprocket, name);
}

/** Writes Ready, observedGeneration and the ConfigMap's name, only when one of them changes. */
async function writeStatus(ctx: Context, sprocket: SprocketObject, configMap: string): Promise<void> {
  const generation = sprocket.metadata.generation;
  const conditions = [...(sprocket.status?.conditions ?? [])] as Condition[];
  const conditionChanged = setCondition(conditions, {
    type: "Ready",
    status: "True",
    reason: "ConfigMapInSync",
    message: `ConfigMap ${configMap} holds the message`,
    observedGeneration: generation,
  });
  const status = sprocket.status;
  if (!conditionChanged && status?.observedGeneration === generation && status?.configMap === configMap)
    return;
  await ctx.client.status.patch(
    Sprocket,
    sprocket.metadata.name as string,
    { status: { configMap, observedGeneration: generation, conditions } },
    { type: "merge", namespace: sprocket.metadata.namespace },
  );
}

async function cleanUp(ctx: Context, sprocket: SprocketObject, log: CleanupLog): Promise<void> {
  const name = configMapName(sprocket.metadata.name ?? "");
  try {
    await ctx.client.delete(ConfigMap, name, { namespace: sprocket.metadata.namespace });
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
  }
  ctx.recorder.normal(sprocket, "CleanedUp", "Finalize", `deleted ${name}`);
  log.push(sprocket.metadata.name ?? "");
}

/** Builds the Sprocket controller on `host`; the declaration it returns is the input of RBAC generation. */
export function sprocketController(host: ControllerHost, log: CleanupLog) {
  return controller(host)
    .for(Sprocket)
    .owns(ConfigMap)
    .reconcile(async (ctx) => {
      const sprocket = ctx.object;
      if (!sprocket) return undefined;
      return withFinalizer(
        ctx.client,
        Sprocket,
        sprocket,
        FINALIZER,
        async (event) => {
          if (event.type === "cleanup") await cleanUp(ctx, event.object, log);
          else await converge(ctx, event.object);
          return undefined;
        },
        { recorder: ctx.recorder },
      );
    });
}
