import { systemClock } from "kubeloop/clock";
import { WorkQueue } from "kubeloop/queue";

declare const signal: AbortSignal;
declare function reconcile(key: string): Promise<void>;

// #region queue
const queue = new WorkQueue({ clock: systemClock });
queue.add("default/web", "watch:Deployment");
for (let item = await queue.get(signal); item; item = await queue.get(signal)) {
  try {
    await reconcile(item.key); // item.reasons: [{ reason: "watch:Deployment", count: 1 }]
    queue.forget(item.key);
  } catch {
    queue.addRateLimited(item.key, "retry");
  } finally {
    queue.done(item.key);
  }
}
// #endregion
