import { defineKind, type ObjectOf, withFinalizer, z } from "kubeloop";
import type { Action, Reconciler } from "kubeloop/controller";

const Backup = defineKind({
  group: "backups.example.com",
  version: "v1",
  kind: "Backup",
  scope: "Namespaced",
  spec: z.object({ prefix: z.string() }),
});
type BackupObject = ObjectOf<typeof Backup>;
declare const bucket: { deleteAll(prefix: string): Promise<void> };
declare function reconcileBackup(backup: BackupObject): Promise<Action | undefined>;

export const reconcile: Reconciler<BackupObject> = async (ctx) => {
  const backup = ctx.object;
  if (!backup) return;
  // #region withFinalizer
  return withFinalizer(
    ctx.client,
    Backup,
    backup,
    "backups.example.com/cleanup",
    async (event) => {
      if (event.type === "cleanup") return void (await bucket.deleteAll(event.object.spec.prefix));
      return reconcileBackup(event.object);
    },
    { recorder: ctx.recorder },
  );
  // #endregion
};
