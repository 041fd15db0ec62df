import { systemClock } from "kubeloop/clock";
import { LOW_PRIORITY, WorkQueue } from "kubeloop/queue";

declare const signal: AbortSignal;
declare function reconcile(key: string): Promise<void>;

// #region queue
const queue = new WorkQueue({ clock: systemClock });
queue.add("default/web", "watch:Deployment");
queue.add("default/db", "resync", { priority: LOW_PRIORITY }); // handed out after default/web
for (let item = await queue.get(signal); item; item = await queue.get(signal)) {
  try {
    await reconcile(item.key); // item.reasons: [{ reason: "watch:Deployment", count: 1 }]
    queue.forget(item.key);
  } catch {
    queue.addRateLimited(item.key, "retry", { priority: item.priority });
  } finally {
    queue.done(item.key);
  }
}
// #endregion
