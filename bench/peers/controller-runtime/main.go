// The controller-runtime contender: the Widget operator as the Kubebuilder book writes one.
// A typed Widget (hand-written instead of controller-gen output), For(Widget).Owns(ConfigMap),
// controllerutil.CreateOrUpdate for the ConfigMap with a controller reference, and
// meta.SetStatusCondition + Status().Update only when the status changed. The benchmark's
// settings: client-side rate limiting off (QPS -1, as for every contender) unless
// BENCH_CLIENT_SETTINGS=defaults, 4 workers, a 30 s SyncPeriod, no metrics or health endpoints. It prints the runner's progress lines
// (BENCH ready / first-reconcile / all-reconciled / unchanged-reconciled) on stdout; logs go to stderr.
package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

var groupVersion = schema.GroupVersion{Group: "bench.kubeloop.dev", Version: "v1"}

// WidgetSpec is the desired state.
type WidgetSpec struct {
	Message string `json:"message"`
}

// WidgetStatus is the observed state.
type WidgetStatus struct {
	ObservedGeneration int64              `json:"observedGeneration,omitempty"`
	Conditions         []metav1.Condition `json:"conditions,omitempty"`
}

// Widget owns one ConfigMap holding spec.message.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec   `json:"spec,omitempty"`
	Status            WidgetStatus `json:"status,omitempty"`
}

// WidgetList is a list of Widgets.
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

// DeepCopyObject is what controller-gen would generate.
func (in *Widget) DeepCopyObject() runtime.Object {
	out := &Widget{TypeMeta: in.TypeMeta, Spec: in.Spec}
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Status.ObservedGeneration = in.Status.ObservedGeneration
	if in.Status.Conditions != nil {
		out.Status.Conditions = make([]metav1.Condition, len(in.Status.Conditions))
		for i := range in.Status.Conditions {
			in.Status.Conditions[i].DeepCopyInto(&out.Status.Conditions[i])
		}
	}
	return out
}

// DeepCopyObject is what controller-gen would generate.
func (in *WidgetList) DeepCopyObject() runtime.Object {
	out := &WidgetList{TypeMeta: in.TypeMeta}
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	if in.Items != nil {
		out.Items = make([]Widget, len(in.Items))
		for i := range in.Items {
			out.Items[i] = *in.Items[i].DeepCopyObject().(*Widget)
		}
	}
	return out
}

// markers prints the runner's progress lines.
type markers struct {
	mu        sync.Mutex
	started   bool
	expected  int
	streamed  int
	done      map[string]struct{}
	unchanged map[string]struct{}
}

func (m *markers) reconcileStarted() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.started {
		m.started = true
		fmt.Println("BENCH first-reconcile")
	}
}

func (m *markers) reconcileDone(key string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.expected <= 0 || len(m.done) >= m.expected {
		return
	}
	m.done[key] = struct{}{}
	if len(m.done) == m.expected {
		fmt.Println("BENCH all-reconciled")
	}
	if _, seen := m.unchanged[key]; seen || m.isStreamed(key) {
		return
	}
	m.unchanged[key] = struct{}{}
	if len(m.unchanged) == m.expected-min(m.streamed, m.expected) {
		fmt.Println("BENCH unchanged-reconciled")
	}
}

// isStreamed tells whether key (bench/w-00042) is a Widget the starvation stream changes: its index is below streamed.
func (m *markers) isStreamed(key string) bool {
	index, err := strconv.Atoi(key[strings.LastIndex(key, "-")+1:])
	return err == nil && index < m.streamed
}

// WidgetReconciler converges one Widget.
type WidgetReconciler struct {
	client.Client
	Scheme  *runtime.Scheme
	markers *markers
}

// Reconcile creates or fixes the Widget's ConfigMap and reports Ready.
func (r *WidgetReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	r.markers.reconcileStarted()
	var widget Widget
	if err := r.Get(ctx, req.NamespacedName, &widget); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !widget.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: widget.Name + "-config", Namespace: widget.Namespace}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, cm, func() error {
		cm.Data = map[string]string{"message": widget.Spec.Message}
		return controllerutil.SetControllerReference(&widget, cm, r.Scheme)
	}); err != nil {
		return ctrl.Result{}, err
	}
	changed := meta.SetStatusCondition(&widget.Status.Conditions, metav1.Condition{
		Type:               "ConfigMapReady",
		Status:             metav1.ConditionTrue,
		Reason:             "ConfigMapPublished",
		Message:            fmt.Sprintf("ConfigMap %s holds the message", cm.Name),
		ObservedGeneration: widget.Generation,
	})
	changed = meta.SetStatusCondition(&widget.Status.Conditions, metav1.Condition{
		Type:               "Ready",
		Status:             metav1.ConditionTrue,
		Reason:             "AllConditionsNormal",
		ObservedGeneration: widget.Generation,
	}) || changed
	if changed || widget.Status.ObservedGeneration != widget.Generation {
		widget.Status.ObservedGeneration = widget.Generation
		if err := r.Status().Update(ctx, &widget); err != nil {
			return ctrl.Result{}, err
		}
	}
	r.markers.reconcileDone(req.String())
	return ctrl.Result{}, nil
}

func envInt(name string, fallback int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return fallback
}

func main() {
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr)))
	scheme := runtime.NewScheme()
	must(clientgoscheme.AddToScheme(scheme))
	scheme.AddKnownTypes(groupVersion, &Widget{}, &WidgetList{})
	metav1.AddToGroupVersion(scheme, groupVersion)

	// At its defaults (BENCH_CLIENT_SETTINGS=defaults) the config is left as GetConfigOrDie gives it.
	// In v0.25.2 that is already QPS -1, no client-side limiter: GetConfigWithContext sets QPS -1
	// when the kubeconfig sets none (pkg/client/config/config.go, since ab40409635dc, #3119; the
	// file is the same at 86a0d40e047c), and cluster.New (pkg/cluster/cluster.go) copies the config
	// and sets only its UserAgent. Otherwise the benchmark turns the limit off itself, as for every
	// contender, whatever the library's default.
	cfg := ctrl.GetConfigOrDie()
	if os.Getenv("BENCH_CLIENT_SETTINGS") != "defaults" {
		cfg.QPS = -1
	}
	syncPeriod := time.Duration(envInt("BENCH_RESYNC_SECONDS", 30)) * time.Second
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 scheme,
		Cache:                  cache.Options{SyncPeriod: &syncPeriod},
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	})
	must(err)
	m := &markers{
		expected:  envInt("BENCH_EXPECT", 0),
		streamed:  envInt("BENCH_STREAMED", 0),
		done:      map[string]struct{}{},
		unchanged: map[string]struct{}{},
	}
	must(ctrl.NewControllerManagedBy(mgr).
		For(&Widget{}).
		Owns(&corev1.ConfigMap{}).
		WithOptions(controller.Options{MaxConcurrentReconciles: envInt("BENCH_WORKERS", 4)}).
		Complete(&WidgetReconciler{Client: mgr.GetClient(), Scheme: scheme, markers: m}))

	ctx := ctrl.SetupSignalHandler()
	go func() {
		if mgr.GetCache().WaitForCacheSync(ctx) {
			fmt.Println("BENCH ready")
		}
	}()
	must(mgr.Start(ctx))
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
