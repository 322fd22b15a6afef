// Package e2e holds flamekit's end-to-end tests. They build the four
// commands, put them first on PATH with stand-ins for perf and dmesg (see
// testdata/bin), and run every documented pipeline through bash exactly as a
// user types it, on real captures bundled in testdata. The package has no
// code of its own.
//
//	go test ./e2e/                          everything that needs neither perf nor root
//	FLAMEKIT_E2E_REAL_PERF=1 go test ./e2e/ also README blocks that record with perf (root)
package e2e
