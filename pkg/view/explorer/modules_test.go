package explorer

import (
	"io/fs"
	"slices"
	"testing"
)

// Every script of the package is one of the page's modules, written once.
func TestScriptModules(t *testing.T) {
	files, err := fs.Glob(scripts, "*.js")
	if err != nil {
		t.Fatal(err)
	}
	order := slices.Clone(scriptOrder)
	slices.Sort(order)
	if !slices.Equal(files, slices.Compact(order)) || len(order) != len(scriptOrder) {
		t.Errorf("scriptOrder %v; the package's scripts %v", scriptOrder, files)
	}
}
