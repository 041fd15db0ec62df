// The controller-runtime contender of bench/cache-rss.ts: one replica caching every Pod of the
// cluster, as a controller-runtime operator does when it watches Pods. A manager at its defaults
// (metrics and health probes off, no leader election), one Pod informer from its cache, started
// with the manager. By default the cache keeps managedFields, as controller-runtime does unless
// the user sets cache.Options.DefaultTransform; with BENCH_STRIP_MANAGED_FIELDS=1 it sets it to
// cache.TransformStripManagedFields(), which the controller-runtime docs recommend. With
// BENCH_NAMESPACE set, it caches that namespace's Pods only (the runner's empty-cache baseline).
// Once the cache has synced it prints "BENCH synced <count of cached Pods>".
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

func main() {
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr)))
	scheme := runtime.NewScheme()
	must(clientgoscheme.AddToScheme(scheme))
	cacheOptions := cache.Options{}
	if os.Getenv("BENCH_STRIP_MANAGED_FIELDS") == "1" {
		cacheOptions.DefaultTransform = cache.TransformStripManagedFields()
	}
	if ns := os.Getenv("BENCH_NAMESPACE"); ns != "" {
		cacheOptions.DefaultNamespaces = map[string]cache.Config{ns: {}}
	}
	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{
		Scheme:                 scheme,
		Cache:                  cacheOptions,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	})
	must(err)

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	_, err = mgr.GetCache().GetInformer(ctx, &corev1.Pod{})
	must(err)
	go func() {
		if !mgr.GetCache().WaitForCacheSync(ctx) {
			return
		}
		var pods corev1.PodList
		must(mgr.GetCache().List(ctx, &pods, client.UnsafeDisableDeepCopy))
		fmt.Printf("BENCH synced %d\n", len(pods.Items))
	}()
	must(mgr.Start(ctx))
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
