/** The cache budget and the refused lazy informers of docs/watching-references.md. */
import { Manager } from "kubeloop";

/** A manager whose Secrets have a budget and whose cached reads start no informer. */
export async function budgetedManager(): Promise<Manager> {
  // #region references-cache-cost
  const manager = await Manager.create({
    name: "apps",
    cache: {
      budgets: { "v1/Secret": 64 * 2 ** 20 },
      // Refuse ctx.cache.reader() of a kind no informer was made for (MissingInformerError,
      // KL_CACHE_MISSING_INFORMER) instead of starting a cluster-wide one. Off by default, as
      // controller-runtime's ReaderFailOnMissingInformer.
      failOnMissingInformer: true,
    },
  });
  // #endregion
  return manager;
}
