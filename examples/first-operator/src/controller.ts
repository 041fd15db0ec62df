/** The first-operator guide's Backup controller (docs/first-operator.md). */
// #region first-operator-controller
import {
  type Action,
  ConfigMap,
  type ControllerHost,
  controller,
  ensureChild,
  keyOf,
  objectKey,
  type ReconcileContext,
  withFinalizer,
  writeStatus,
} from "kubeloop";
import { CronJob } from "kubeloop/api";
import { Backup, BackupConditions, type BackupObject } from "./api.ts";
import { desiredCronJob, desiredEnv, prefixOf } from "./desired.ts";
import { store } from "./store.ts";

const FINALIZER = "backup.example.com/delete-backups";
const BY_SETTINGS = "settings";

type Context = ReconcileContext<BackupObject>;

/** Registers the Backup controller on `host` (the manager). */
export function backupController(host: ControllerHost) {
  // Backups indexed by the settings ConfigMap they name: a ConfigMap change finds its Backups at once.
  const backups = host.cache.informer(Backup);
  backups.addIndexer(BY_SETTINGS, (backup) => [objectKey(backup.metadata.namespace, backup.spec.settings)]);
  return controller(host)
    .for(Backup)
    .owns(CronJob)
    .owns(ConfigMap)
    .watches(ConfigMap, (cm) => backups.store.byIndex(BY_SETTINGS, keyOf(cm)).map(keyOf))
    .reconcile(reconcileBackup);
}

/** Converges one Backup; deletes its backups before it goes. */
export async function reconcileBackup(ctx: Context): Promise<Action | undefined> {
  const backup = ctx.object;
  if (!backup) return undefined; // gone: its CronJob and ConfigMap are garbage-collected
  return withFinalizer(
    ctx.client,
    Backup,
    backup,
    FINALIZER,
    async (event) => {
      if (event.type === "apply") return converge(ctx, event.object);
      await deleteBackups(ctx, event.object);
      return undefined;
    },
    { recorder: ctx.recorder },
  );
}
// #endregion

// #region first-operator-converge
async function converge(ctx: Context, backup: BackupObject): Promise<Action | undefined> {
  const settings = (await ctx.cache.reader(ConfigMap)).get(backup.spec.settings, backup.metadata.namespace);
  const destination = settings?.data?.destination;
  if (!destination) {
    // Level-triggered: the ConfigMap watch brings this Backup back when the settings appear.
    await writeStatus(ctx, Backup, backup, BackupConditions, (draft, fresh) => {
      const message = `ConfigMap ${backup.spec.settings} with a "destination" key not found`;
      draft.set("SettingsFound", { status: "False", reason: "SettingsMissing", message });
      draft.set("Scheduled", { status: "Unknown", reason: "WaitingForSettings" });
      return { destination: fresh.status?.destination }; // backups already written stay to clean up
    });
    return undefined;
  }
  await ensureChild(ctx, backup, ConfigMap, desiredEnv(backup, destination));
  await ensureChild(ctx, backup, CronJob, desiredCronJob(backup));
  const cronJob = (await ctx.cache.reader(CronJob)).get(
    backup.metadata.name ?? "",
    backup.metadata.namespace,
  );
  await writeStatus(ctx, Backup, backup, BackupConditions, (draft, fresh) => {
    draft.set("SettingsFound", { status: "True", reason: "SettingsFound", message: `to ${destination}` });
    draft.set(
      "Scheduled",
      cronJob?.spec?.schedule === fresh.spec.schedule
        ? { status: "True", reason: "CronJobScheduled", message: `CronJob ${cronJob.metadata.name}` }
        : { status: "False", reason: "Scheduling", message: "waiting for the CronJob" },
    );
    return { destination, lastScheduleTime: cronJob?.status?.lastScheduleTime };
  });
  return undefined;
}

/** The finalizer's cleanup: what garbage collection cannot do. Safe to run twice. */
async function deleteBackups(ctx: Context, backup: BackupObject): Promise<void> {
  const destination = backup.status?.destination; // recorded in status: the settings may be gone by now
  if (!destination) return; // never scheduled, nothing written
  await store.deleteAll(destination, prefixOf(backup));
  ctx.recorder.normal(backup, "BackupsDeleted", "Finalize", `deleted ${destination}/${prefixOf(backup)}`);
}
// #endregion
