// Command kstatus-fixtures records what sigs.k8s.io/cli-utils status.Compute says of each object
// in a fixtures file, so that kubeloop's kstatus is checked against the real library
// (test/unit/status/kstatus-builtins.test.ts). It rewrites each case's "expected" and leaves the
// objects as they are. Run it by hand after editing the objects, from this folder:
//
//	go run . ../../test/fixtures/kstatus/builtins.json && npx biome format --write ../../test/fixtures/kstatus/builtins.json
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
)

type fixtures struct {
	Comment string    `json:"comment"`
	Cases   []fixture `json:"cases"`
}

type fixture struct {
	Name     string          `json:"name"`
	Object   json.RawMessage `json:"object"`
	Expected expected        `json:"expected"`
}

type expected struct {
	Status  string `json:"status"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message"`
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go run . <fixtures.json>")
		os.Exit(2)
	}
	if err := record(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func record(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var file fixtures
	if err := json.Unmarshal(data, &file); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	for i := range file.Cases {
		if file.Cases[i].Expected, err = compute(file.Cases[i].Object); err != nil {
			return fmt.Errorf("%s: case %q: %w", path, file.Cases[i].Name, err)
		}
	}
	out, err := json.MarshalIndent(file, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(out, '\n'), 0o644)
}

// compute decodes the object as a client does (integers as int64) and reduces status.Compute's
// result to what kubeloop's kstatus returns: the reason is that of the condition it synthesizes.
func compute(object json.RawMessage) (expected, error) {
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(object); err != nil {
		return expected{}, err
	}
	result, err := status.Compute(u)
	if err != nil {
		return expected{}, err
	}
	reason := ""
	if len(result.Conditions) > 0 {
		reason = result.Conditions[0].Reason
	}
	return expected{Status: string(result.Status), Reason: reason, Message: result.Message}, nil
}
