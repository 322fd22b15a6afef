// Package unitcases reads the table of cases shared by stacktop's units
// (pkg/view/top/units.go) and their twin in the explorer page (units.js):
// pkg/view/top/testdata/labels.json.
package unitcases

import (
	"encoding/json"
	"os"
	"testing"
)

// Label is a value, its unit, the unit to print it in, and the text.
type Label struct {
	V        float64
	From, To string
	Want     string
}

// Unit is the values shown and the total of a table, their unit, and the
// unit pprof's -unit=minimum chooses.
type Unit struct {
	Vals  []float64
	Total float64
	From  string
	Want  string
}

// Cases are the file's two tables.
type Cases struct {
	Labels []Label
	Units  []Unit
}

// Read reads the cases at path, failing t when it cannot or when a table
// is empty.
func Read(t testing.TB, path string) Cases {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var c Cases
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(c.Labels) == 0 || len(c.Units) == 0 {
		t.Fatalf("%s: no cases", path)
	}
	return c
}
