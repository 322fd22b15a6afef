// Package cli is the plumbing shared by the flamekit commands: kong set-up
// with the Perl tools' option spellings, --version, buffered standard
// output, and exit statuses that scripts can trust.
package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/alecthomas/kong"

	"flamekit/internal/base/hugepage"
	"flamekit/pkg/source"
	"flamekit/pkg/tool"
)

// Exit statuses of every flamekit command.
const (
	ExitOK      = 0 // success (possibly with skipped lines reported on stderr)
	ExitFailure = 1 // an input could not be read, or output could not be written
	ExitUsage   = 2 // bad command line; also flamegraph's "no stack counts" (as flamegraph.pl)
)

// version is set at build time with
// -ldflags "-X flamekit/internal/cli.version=v1.2.3".
var version = ""

// Version returns the flamekit version: the one set at build time, else
// the module version or VCS revision recorded by the Go toolchain.
func Version() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			return v
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				return "dev-" + s.Value[:12]
			}
		}
	}
	return "dev"
}

// Env is what a command's Run gets: standard streams, with Stdout buffered.
type Env struct {
	Name   string        // command name, for messages
	Stdin  io.Reader     // standard input
	Stdout *bufio.Writer // buffered; Main flushes it
	Stderr io.Writer
}

// Warnf prints "name: message" on stderr.
func (e *Env) Warnf(format string, args ...any) {
	fmt.Fprintf(e.Stderr, e.Name+": "+format+"\n", args...)
}

// Tool is the Env of a tool called as a library (pkg/*/tool): the same
// streams, with its warnings printed as this command's. A
// tool.UsageError it returns is reported as a usage error (exit 2).
func (e *Env) Tool() *tool.Env {
	return &tool.Env{Stdin: e.Stdin, Stdout: e.Stdout, Stderr: e.Stderr,
		Warn: func(msg string) { e.Warnf("%s", msg) }}
}

// ExitError is an error that carries the exit status Main should use.
type ExitError struct {
	Code int
	Err  error // printed unless nil
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// Usagef returns an error that Main reports as a usage error (exit 2):
// the tool.UsageError the tools return, so that a usage error has one
// type whether a command or the tool it calls finds it.
func Usagef(format string, args ...any) error { return tool.Usagef(format, args...) }

// Command is a kong grammar with a Run method.
type Command interface {
	Run(env *Env) error
}

// Defaulter is implemented by a Command whose flag defaults come from a
// library's defaults rather than from literals in its struct tags: the
// values are kong variables, written ${name} in a default tag, so that a
// default lives in one place (for example svg.DefaultOptions).
type Defaulter interface {
	Defaults() map[string]string
}

// VersionFlag is the --version flag of every command.
type VersionFlag = kong.VersionFlag

// Main parses os.Args into cmd, runs it and exits. description is the
// first paragraph of --help, examples are shown after the flags.
//
// SIGINT, SIGTERM and SIGHUP end the command at once, the process dying
// of them (a shell reports 130, 143 or 129, and a shell loop interrupted
// by ^C stops). Where the temporary files its inputs made keep their
// names (copies of standard input, decompressed perf.data files; where
// /proc is mounted they are unlinked as soon as they are made, see
// pkg/source), a handler installed with the first of them removes them
// first.
//
// Before anything else it asks for huge pages for the heap's first 4 MB
// (hugepage.First), and, when the named inputs are large, for the heap
// ahead (see askHugePages).
func Main(name, description string, cmd Command) {
	hugepage.First()
	source.OnNamedTemp(func() { onSignals(source.RemoveTemps) })
	askHugePages(os.Args[1:], os.Stdin)
	var stdout io.Writer = os.Stdout
	if stdoutClosed() {
		stdout = closedWriter{}
	}
	code := Run(name, description, cmd, os.Args[1:], os.Stdin, stdout, os.Stderr)
	if stdout == os.Stdout {
		// Closed before the exit, which tears the process's memory
		// down first (3 to 5 ms of a run that used tens of MB): the
		// next command of a pipeline reads its end of file that much
		// sooner. Where writes are only checked on close (NFS), its
		// error is the output's.
		if err := os.Stdout.Close(); err != nil && code == ExitOK {
			code = outputFailed(name, err, os.Stderr)
		}
	}
	source.RemoveTemps()
	os.Exit(code)
}

// onSignals makes SIGINT, SIGTERM and SIGHUP run cleanup, then end the
// process by the same signal, its default action restored (else with
// 128 plus its number).
func onSignals(cleanup func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		sig := <-ch
		cleanup()
		s, _ := sig.(syscall.Signal)
		signal.Reset(s)
		syscall.Kill(os.Getpid(), s)
		time.Sleep(time.Second) // the signal's delivery
		os.Exit(128 + int(s))
	}()
}

// output is a command's standard output: it keeps the first write error,
// so that any failed write (--help, --version, the run's output) is
// reported once, naming the output, whatever the code that wrote made of
// the error.
type output struct {
	w   io.Writer
	err error
}

func (o *output) Write(p []byte) (int, error) {
	if o.err != nil {
		return 0, o.err
	}
	n, err := o.w.Write(p)
	if err != nil {
		o.err = err
	}
	return n, err
}

// outputFailed reports a failed write to standard output: nothing for a
// closed pipe (| head), else one message and ExitFailure.
func outputFailed(name string, err error, stderr io.Writer) int {
	if errors.Is(err, syscall.EPIPE) {
		return ExitOK // a closed pipe (| head) is not an error
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err // "write /dev/stdout: " says less than what follows
	}
	fmt.Fprintf(stderr, "%s: writing standard output: %v\n", name, err)
	return ExitFailure
}

// Run is Main without os.Exit, for tests; it returns the exit status.
func Run(name, description string, cmd Command, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	out := &output{w: stdout}
	exited := false
	vars := kong.Vars{"version": name + " (flamekit) " + Version()}
	if d, ok := cmd.(Defaulter); ok {
		for k, v := range d.Defaults() {
			vars[k] = v
		}
	}
	parser, err := kong.New(cmd,
		kong.Name(name),
		kong.Description(description),
		kong.Writers(out, stderr),
		vars,
		kong.Exit(func(c int) { exited, code = true, c; panic(exitPanic{}) }),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true, NoExpandSubcommands: true}),
	)
	if err != nil {
		fmt.Fprintf(stderr, "%s: internal error: %v\n", name, err)
		return ExitFailure
	}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(exitPanic); !ok || !exited {
				panic(r)
			}
			if out.err != nil { // --help or --version could not be written
				code = outputFailed(name, out.err, stderr)
			}
		}
	}()
	args = NormalizeArgs(args, parser.Model.Node)
	if _, err := parser.Parse(args); err != nil {
		if out.err != nil {
			return outputFailed(name, out.err, stderr)
		}
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		fmt.Fprintf(stderr, "Try '%s --help' for usage and examples.\n", name)
		return ExitUsage
	}
	buf := bufio.NewWriterSize(out, 256<<10)
	env := &Env{Name: name, Stdin: stdin, Stdout: buf, Stderr: stderr}
	runErr := cmd.Run(env)
	buf.Flush()
	if out.err != nil {
		// Whatever the run made of it (its error wraps it, or it
		// stopped), the output is lost: that is the one message.
		return outputFailed(name, out.err, stderr)
	}
	return report(name, runErr, stderr)
}

type exitPanic struct{}

func report(name string, err error, stderr io.Writer) int {
	if err == nil || errors.Is(err, syscall.EPIPE) {
		return ExitOK // a closed pipe (| head) is not an error
	}
	code := ExitFailure
	var ee *ExitError
	if ue := (*tool.UsageError)(nil); errors.As(err, &ue) {
		code = ExitUsage
	} else if errors.As(err, &ee) {
		code = ee.Code
		if ee.Err == nil {
			return code
		}
	}
	fmt.Fprintf(stderr, "%s: %v\n", name, err)
	if code == ExitUsage {
		fmt.Fprintf(stderr, "Try '%s --help' for usage and examples.\n", name)
	}
	return code
}

// NormalizeArgs rewrites the option spellings that Perl's Getopt::Long
// accepts into kong's: a single dash before a long name (-pid), any case
// (--PID), and unique prefixes (--wid 300). Single-letter options and
// bundles of them (-ns) are left alone, and so is everything after "--".
func NormalizeArgs(args []string, node *kong.Node) []string {
	var longs []string
	for _, group := range node.AllFlags(false) {
		for _, f := range group {
			longs = append(longs, f.Name)
			longs = append(longs, f.Aliases...)
			if f.Tag != nil && f.Tag.Negatable != "" {
				longs = append(longs, "no-"+f.Name)
			}
		}
	}
	out := make([]string, 0, len(args))
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		out = append(out, normalizeArg(a, longs))
	}
	return out
}

func normalizeArg(a string, longs []string) string {
	var body string
	switch {
	case strings.HasPrefix(a, "--"):
		body = a[2:]
	case strings.HasPrefix(a, "-") && len(a) > 2:
		body = a[1:]
	default:
		return a
	}
	name, value, hasValue := strings.Cut(body, "=")
	if name == "" {
		return a
	}
	lower := strings.ToLower(name)
	match := ""
	for _, l := range longs {
		if l == lower {
			match = l
			break
		}
	}
	if match == "" {
		for _, l := range longs {
			if strings.HasPrefix(l, lower) {
				if match != "" {
					return a // ambiguous prefix: kong reports it as unknown
				}
				match = l
			}
		}
	}
	if match == "" {
		return a
	}
	if !strings.HasPrefix(a, "--") && len(name) < 2 {
		return a
	}
	if hasValue {
		return "--" + match + "=" + value
	}
	return "--" + match
}
