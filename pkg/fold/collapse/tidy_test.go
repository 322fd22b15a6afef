package collapse

import (
	"strings"
	"testing"
)

// TestTidyGeneric checks the argument cut of every kind of name: JVM
// descriptors are cut at their '(' as by Perl, C++ names keep the
// parentheses that are part of the name (templates, lambdas, operator(),
// the anonymous namespace), Go methods keep theirs.
func TestTidyGeneric(t *testing.T) {
	tests := []struct{ name, in, want string }{
		// JVM descriptors (perf-map-agent, FlameGraph's perf-vertx-stacks-01).
		{"no arguments, void", "Lio/netty/channel/nio/NioEventLoop;.run()V", "Lio/netty/channel/nio/NioEventLoop:.run"},
		{"object argument, boolean", "Ljava/lang/String;.equals(Ljava/lang/Object;)Z", "Ljava/lang/String:.equals"},
		{"byte array argument", "Lio/netty/buffer/AbstractByteBuf;.writeBytes([B)Lio/netty/buffer/ByteBuf;", "Lio/netty/buffer/AbstractByteBuf:.writeBytes"},
		{"int array, int", "LFoo;.sum([I)I", "LFoo:.sum"},
		{"primitives", "Lsun/nio/ch/FileDispatcherImpl;.write0(Ljava/io/FileDescriptor;JI)I", "Lsun/nio/ch/FileDispatcherImpl:.write0"},
		{"constructor", "Lsun/nio/cs/UTF_8$Encoder;.<init>(Ljava/nio/charset/Charset;Lsun/nio/cs/UTF_8$1;)V", "Lsun/nio/cs/UTF_8$Encoder:.<init>"},
		{"arrays of arrays", "LFoo;.m([[ILjava/lang/String;)[[J", "LFoo:.m"},
		{"array return", "LFoo;.bytes()[B", "LFoo:.bytes"},
		{"return type cut short", "Lio/netty/channel/AbstractChannelHandlerContext;.fireChannelRead(Ljava/lang/Object;)Lio/netty/chann", "Lio/netty/channel/AbstractChannelHandlerContext:.fireChannelRead"},
		{"arguments cut short", "Lorg/mozilla/javascript/ContextFactory;.call(Lorg/mozilla/javascript/C", "Lorg/mozilla/javascript/ContextFactory:.call"},
		{"cut after the group", "Lio/netty/channel/nio/NioEventLoop;.processSelectedKeysOptimized([Ljava/nio/channels/SelectionKey;)", "Lio/netty/channel/nio/NioEventLoop:.processSelectedKeysOptimized"},
		{"readable Java", "Busy.sortList(int)", "Busy.sortList"},
		// Not descriptors: kept as the bracket-aware rule decides.
		{"lowercase is no field type", "foo(int)V", "foo(int)V"},
		{"unknown letter", "LFoo;.m(Q)V", "LFoo:.m(Q)V"},
		{"empty class name", "LFoo;.m(L;)V", "LFoo:.m(L:)V"},
		// C++ (the cpp-templates capture).
		{"plain", "compute(int, double)", "compute"},
		{"std::function", "std::function<int (int, int)>::operator()(int) const", "std::function<int (int, int)>::operator()"},
		{"lambda", "main::{lambda(int, int)#1}::operator()(int, int) const", "main::{lambda(int, int)#1}::operator()"},
		{"function handler", "std::_Function_handler<int (int, int), main::{lambda(int, int)#2}>::_M_invoke(std::_Any_data const&, int&&, int&&)",
			"std::_Function_handler<int (int, int), main::{lambda(int, int)#2}>::_M_invoke"},
		{"anonymous namespace", "(anonymous namespace)::hidden_mix(unsigned long)", "(anonymous namespace)::hidden_mix"},
		{"template", "geo::Matrix<double, 48>::multiply(geo::Matrix<double, 48> const&) const", "geo::Matrix<double, 48>::multiply"},
		{"clone", "foo(int) [clone .isra.0]", "foo"},
		{"unbalanced: Perl's cut", "foo(int", "foo"},
		// Go.
		{"Go method", "net/http.(*Client).Do", "net/http.(*Client).Do"},
		{"quotes", `RegExp:[&<>\"\']`, `RegExp:[&<>\\]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := []byte(tc.in)
			if got := string(b[:tidyGeneric(b)]); got != tc.want {
				t.Errorf("tidy(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// TestJavaNames: a java process's JVM descriptor frames fold to Perl's
// "package/Class:.method", the leading L removed.
func TestJavaNames(t *testing.T) {
	s := smp("java",
		"7f1e2d4c Lio/netty/channel/nio/NioEventLoop;.processSelectedKeys()V (/tmp/perf-3236.map)",
		"7f1e2d3c Lio/netty/channel/nio/NioEventLoop;.run()V (/tmp/perf-3236.map)",
		"7f1e2d2c Interpreter (/tmp/perf-3236.map)")
	for _, tc := range []struct {
		opt  Options
		want string
	}{
		{Options{NoTime: true}, "java;Interpreter;io/netty/channel/nio/NioEventLoop:.run;io/netty/channel/nio/NioEventLoop:.processSelectedKeys 1\n"},
		{Options{NoTime: true, JIT: true}, "java;Interpreter_[j];io/netty/channel/nio/NioEventLoop:.run_[j];io/netty/channel/nio/NioEventLoop:.processSelectedKeys_[j] 1\n"},
	} {
		if r := run(t, tc.opt, s); r.out != tc.want {
			t.Errorf("%+v: got %q, want %q", tc.opt, r.out, tc.want)
		}
	}
}

// FuzzTidyGeneric: the tidy never panics, never grows a name, leaves no
// ';' or quote, and cuts a JVM descriptor where Perl does (the first '(').
func FuzzTidyGeneric(f *testing.F) {
	for _, s := range []string{"Lio/netty/channel/nio/NioEventLoop;.run()V", "LFoo;.m([[ILjava/lang/String;)[[J",
		"Lx;.f(Ljava/lang/Object;)Lio/netty/chann", "std::function<int (int, int)>::operator()(int) const",
		"main::{lambda(int, int)#1}::operator()(int, int) const", "(anonymous namespace)::f(int)", "net/http.(*Client).Do",
		"operator<<(std::ostream&, A const&)", `RegExp:[&<>\"\']`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := []byte(s)
		n := tidyGeneric(b)
		if n < 0 || n > len(s) {
			t.Fatalf("tidy(%q) returned length %d", s, n)
		}
		got := string(b[:n])
		if strings.ContainsAny(got, `;"'`) {
			t.Fatalf("tidy(%q) = %q keeps a ';' or a quote", s, got)
		}
		if i := strings.IndexByte(s, '('); i >= 0 && !strings.ContainsAny(s, `"'`) && !goMethodShape([]byte(s)) &&
			javaDescriptor([]byte(strings.ReplaceAll(s[i:], ";", ":"))) {
			if want := strings.ReplaceAll(s[:i], ";", ":"); got != want {
				t.Fatalf("tidy(%q) = %q, want Perl's %q", s, got, want)
			}
		}
	})
}
