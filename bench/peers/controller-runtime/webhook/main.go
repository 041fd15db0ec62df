// The controller-runtime contender of bench/webhooks.ts: the ConfigMap port check as a Kubebuilder
// project serves it. A typed admission.Validator[*corev1.ConfigMap] registered with
// admission.WithValidator on controller-runtime's webhook.Server, which reads tls.crt and tls.key
// from BENCH_CERT_DIR (through its certificate watcher) and serves HTTPS on
// 127.0.0.1:BENCH_PORT at BENCH_PATH, HTTP/2 off as the Kubebuilder scaffold sets it (so it
// speaks HTTP/1.1, as kubeloop's server does). The check mirrors bench/webhooks/check.ts: a
// ConfigMap whose data.port is not a whole number from 1 to 65535 is denied with a field cause
// (a 422 Invalid); anything else is admitted. It prints "BENCH ready" once it takes connections.
package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// portCheck validates a ConfigMap's data.port.
type portCheck struct{}

var _ admission.Validator[*corev1.ConfigMap] = portCheck{}

func (portCheck) ValidateCreate(_ context.Context, cm *corev1.ConfigMap) (admission.Warnings, error) {
	return nil, checkPort(cm)
}

func (portCheck) ValidateUpdate(_ context.Context, _, cm *corev1.ConfigMap) (admission.Warnings, error) {
	return nil, checkPort(cm)
}

func (portCheck) ValidateDelete(context.Context, *corev1.ConfigMap) (admission.Warnings, error) {
	return nil, nil
}

// checkPort admits a ConfigMap without data.port or with a whole number from 1 to 65535 written
// plainly (no sign, no leading zero); anything else is an Invalid error naming the field.
func checkPort(cm *corev1.ConfigMap) error {
	value, ok := cm.Data["port"]
	if !ok {
		return nil
	}
	if n, err := strconv.Atoi(value); err == nil && n >= 1 && n <= 65535 && strconv.Itoa(n) == value {
		return nil
	}
	cause := field.Invalid(field.NewPath("data", "port"), value, "must be a whole number from 1 to 65535")
	return apierrors.NewInvalid(schema.GroupKind{Kind: "ConfigMap"}, cm.Name, field.ErrorList{cause})
}

func main() {
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr)))
	scheme := runtime.NewScheme()
	must(clientgoscheme.AddToScheme(scheme))
	port, err := strconv.Atoi(os.Getenv("BENCH_PORT"))
	must(err)
	server := webhook.NewServer(webhook.Options{
		Host:    "127.0.0.1",
		Port:    port,
		CertDir: os.Getenv("BENCH_CERT_DIR"),
		TLSOpts: []func(*tls.Config){func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} }},
	})
	server.Register(os.Getenv("BENCH_PATH"), admission.WithValidator[*corev1.ConfigMap](scheme, portCheck{}))

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	go announceWhenServing(port)
	must(server.Start(ctx))
}

// announceWhenServing prints the runner's "BENCH ready" once the server completes a TLS handshake.
func announceWhenServing(port int) {
	address := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	dialer := &net.Dialer{Timeout: time.Second}
	probe := &tls.Config{InsecureSkipVerify: true} //nolint:gosec // only asks whether it serves
	for {
		if conn, err := tls.DialWithDialer(dialer, "tcp", address, probe); err == nil {
			_ = conn.Close()
			fmt.Println("BENCH ready")
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
