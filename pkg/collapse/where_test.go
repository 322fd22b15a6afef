package collapse

import (
	"testing"

	"flamekit/pkg/folded"
	"flamekit/pkg/sample"
)

// whereOf gives a record the fields that a folded reader reads from the
// line appendWhere writes for the same sample.
func TestWhereOf(t *testing.T) {
	for _, s := range []sample.Sample{
		{CPU: 1, TID: []byte("4243"), ProcessID: 4242, HasProcessID: true},
		{CPU: -1, TID: []byte("-1")},
		{CPU: 0, TID: []byte("2147483647")},
		{CPU: 3, TID: []byte("2147483648")},
		{CPU: 3, TID: []byte("0042"), ProcessID: -1, HasProcessID: true},
		{CPU: 2, TID: []byte("12a")},
		{CPU: 2},
	} {
		line := appendWhere([]byte("a;b 1 @1.000000"), &s)
		var want folded.Record
		if err := folded.ParseLine(line, &want); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		var got folded.Record
		whereOf(&s).record(&got)
		if got.CPU != want.CPU || got.PID != want.PID || got.TID != want.TID || got.Has != want.Has {
			t.Errorf("%s: whereOf gives cpu %d pid %d tid %d has %b", line, got.CPU, got.PID, got.TID, got.Has)
		}
	}
}
