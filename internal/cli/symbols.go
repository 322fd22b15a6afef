package cli

// SymbolFlags are the flags that say where the symbols of perf.data files
// come from, the same in every command that reads them (embed it:
// `embed:""`). See package symbols.
type SymbolFlags struct {
	NoDebuginfod bool `name:"no-debuginfod" group:"Symbols" help:"Never fetch debug files from the debuginfod servers of DEBUGINFOD_URLS (elfutils' cache and variables; with no URLs set nothing is fetched anyway)."`
	Force        bool `name:"force" group:"Symbols" help:"Read perf maps and jitdump files whoever owns them (perf's -f); else only those of root, you or the profiled process's user."`
}
