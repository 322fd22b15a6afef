package selection

import (
	"fmt"
	"regexp"
	"testing"

	"flamekit/pkg/folded"
)

func TestParseList(t *testing.T) {
	tests := []struct {
		in      string
		has     []int32
		hasNot  []int32
		wantErr bool
	}{
		{in: "3", has: []int32{3}, hasNot: []int32{2, 4, -1}},
		{in: "0-3,8", has: []int32{0, 1, 3, 8}, hasNot: []int32{4, 7, 9}},
		{in: "-1", has: []int32{-1}, hasNot: []int32{0, 1}},
		{in: "-1-2", has: []int32{-1, 0, 2}, hasNot: []int32{3}},
		{in: " 5 , 7 ", has: []int32{5, 7}, hasNot: []int32{6}},
		{in: "", wantErr: true},
		{in: "1,,2", wantErr: true},
		{in: "3-1", wantErr: true},
		{in: "a", wantErr: true},
		{in: "-2", wantErr: true},
		{in: "1-", wantErr: true},
		{in: "99999999999", wantErr: true},
	}
	for _, tt := range tests {
		l, err := ParseList(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("ParseList(%q) error = %v, want error %v", tt.in, err, tt.wantErr)
			continue
		}
		if err != nil {
			continue
		}
		for _, v := range tt.has {
			if !l.Has(v) {
				t.Errorf("ParseList(%q).Has(%d) = false", tt.in, v)
			}
		}
		for _, v := range tt.hasNot {
			if l.Has(v) {
				t.Errorf("ParseList(%q).Has(%d) = true", tt.in, v)
			}
		}
	}
}

func TestMatch(t *testing.T) {
	list := func(s string) *List {
		l, err := ParseList(s)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	var rec folded.Record
	parse := func(line string) *folded.Record {
		if err := folded.ParseLine([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		return &rec
	}
	const full = "kubelet;run;work 10 @1.5 cpu=2 pid=100 tid=101"
	tests := []struct {
		sel  Selection
		line string
		want Verdict
	}{
		{Selection{}, full, Keep},
		{Selection{CPU: list("0-3")}, full, Keep},
		{Selection{CPU: list("0,1")}, full, Drop},
		{Selection{PID: list("100")}, full, Keep},
		{Selection{TID: list("100")}, full, Drop},
		{Selection{Comm: regexp.MustCompile("^kube")}, full, Keep},
		{Selection{Comm: regexp.MustCompile("run")}, full, Drop}, // a frame, not the comm
		{Selection{CPU: list("2"), Comm: regexp.MustCompile("x")}, full, Drop},
		{Selection{CPU: list("2")}, "kubelet;run 10 @1.5 tid=101", Unknown},
		{Selection{CPU: list("2")}, "kubelet;run 10", Unknown},
		{Selection{Comm: regexp.MustCompile("kubelet")}, "kubelet;run 10", Keep}, // classic lines have a comm
		{Selection{Comm: regexp.MustCompile("kubelet")}, "kubelet-100/101;run 10 @1.5", Keep},
	}
	for _, tt := range tests {
		if got := tt.sel.Match(parse(tt.line)); got != tt.want {
			t.Errorf("%v.Match(%q) = %d, want %d", tt.sel.Flags(), tt.line, got, tt.want)
		}
	}
}

func ExampleSelection_Match() {
	cpus, _ := ParseList("0-3")
	sel := Selection{CPU: cpus, Comm: regexp.MustCompile("^kubelet")}
	var rec folded.Record
	for _, line := range []string{
		"kubelet;run;work 10309278 @427.2 cpu=1 pid=100 tid=101",
		"kubelet;run;work 10309278 @427.3 cpu=9 pid=100 tid=101",
		"java;main 10309278 @427.3 cpu=1 pid=200 tid=200",
	} {
		folded.ParseLine([]byte(line), &rec)
		fmt.Println(sel.Match(&rec) == Keep)
	}
	fmt.Println(sel.Flags())
	// Output:
	// true
	// false
	// false
	// [--cpu 0-3 --comm ^kubelet]
}
