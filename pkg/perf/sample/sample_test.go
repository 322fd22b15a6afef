package sample

import (
	"fmt"
	"testing"
)

func TestField(t *testing.T) {
	const sw = "prev_comm=Worker 2 pool 7 prev_pid=19275 prev_prio=120 prev_state=D ==> next_comm=migration/0 next_pid=18 next_prio=0"
	tests := []struct {
		payload, name, want string
		ok                  bool
	}{
		{sw, "prev_comm", "Worker 2 pool 7", true},
		{sw, "prev_pid", "19275", true},
		{sw, "prev_state", "D ==>", true}, // the arrow is not a field: callers trim it
		{sw, "next_comm", "migration/0", true},
		{sw, "next_prio", "0", true},
		{sw, "missing", "", false},
		{"size=4096 ", "size", "4096", true},
		{"(55d0c1a2b3c4) size=0x20", "size", "0x20", true},
		{"dev=8:0 sector=123 nr_sector=8 bytes=4096 rwbs=W comm=kworker/u4:2", "nr_sector", "8", true},
		{"", "x", "", false},
		{"=5 a=1", "a", "1", true},
	}
	for _, tc := range tests {
		got, ok := Field([]byte(tc.payload), tc.name)
		if string(got) != tc.want || ok != tc.ok {
			t.Errorf("Field(%q, %q) = %q, %v; want %q, %v", tc.payload, tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

func TestFieldInt(t *testing.T) {
	s := Sample{Payload: []byte("size=0x20 delay=1500 neg=-3 big=18446744073709551615")}
	for name, want := range map[string]int64{"size": 32, "delay": 1500, "neg": -3, "big": -1} {
		if got, ok := s.FieldInt(name); !ok || got != want {
			t.Errorf("FieldInt(%q) = %d, %v; want %d", name, got, ok, want)
		}
	}
	if _, ok := s.FieldInt("nope"); ok {
		t.Error("FieldInt of a missing field reported ok")
	}
}

func ExampleField() {
	payload := []byte("prev_comm=perf prev_pid=19275 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120")
	pid, _ := Field(payload, "prev_pid")
	next, _ := Field(payload, "next_comm")
	fmt.Println(string(pid), string(next))
	// Output: 19275 swapper/0
}

func ExampleAppendScript() {
	s := Sample{
		Comm: []byte("dd"), PID: []byte("4242"), TID: []byte("4242"), CPU: 1,
		Time: 685252994000, HasTime: true, Period: 1003009, HasPeriod: true,
		Event: []byte("cpu-clock:pppH"),
		Frames: []Frame{
			{Addr: []byte("ffffffff821ecc51"), Symbol: []byte("do_syscall_64+0x71"), DSO: []byte("[kernel.kallsyms]")},
			{Addr: []byte("2724a"), Symbol: []byte("__libc_start_call_main+0x7a"), DSO: []byte("/usr/lib/x86_64-linux-gnu/libc.so.6")},
		},
	}
	fmt.Print(string(AppendScript(nil, &s)))
	// Output:
	// dd 4242/4242 [001] 685.252994: 1003009 cpu-clock:pppH:
	// 	ffffffff821ecc51 do_syscall_64+0x71 ([kernel.kallsyms])
	// 	2724a __libc_start_call_main+0x7a (/usr/lib/x86_64-linux-gnu/libc.so.6)
}
