package cli

import (
	"regexp"

	"flamekit/pkg/filter/selection"
)

// SelectFlags are the flags that pick samples by where they ran, the same
// in every command that has them (embed it: `embed:""`). See package
// selection.
type SelectFlags struct {
	CPU  string `name:"cpu" group:"Selection" help:"Keep only the samples of these CPUs: ids and ranges, e.g. 0-3,8 (the cpu= field of timed lines)." placeholder:"LIST"`
	PID  string `name:"pid" group:"Selection" help:"Keep only the samples of these processes (pid= field), e.g. 4242,4250-4260." placeholder:"LIST"`
	TID  string `name:"tid" group:"Selection" help:"Keep only the samples of these threads (tid= field)." placeholder:"LIST"`
	Comm string `name:"comm" group:"Selection" help:"Keep only the samples whose command name (the stack's first frame) matches this regular expression, e.g. ^kubelet$." placeholder:"RE"`
}

// Selection returns the selection the flags give (nil when none is set),
// or a usage error naming the flag that is wrong.
func (f *SelectFlags) Selection() (*selection.Selection, error) {
	var s selection.Selection
	for _, l := range [...]struct {
		flag, text string
		dst        **selection.List
	}{{"--cpu", f.CPU, &s.CPU}, {"--pid", f.PID, &s.PID}, {"--tid", f.TID, &s.TID}} {
		if l.text == "" {
			continue
		}
		list, err := selection.ParseList(l.text)
		if err != nil {
			return nil, Usagef("%s: %v", l.flag, err)
		}
		*l.dst = list
	}
	if f.Comm != "" {
		re, err := regexp.Compile(f.Comm)
		if err != nil {
			return nil, Usagef("--comm: %v", err)
		}
		s.Comm = re
	}
	if s.Empty() {
		return nil, nil
	}
	return &s, nil
}
