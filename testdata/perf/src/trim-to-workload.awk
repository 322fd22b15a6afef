#!/usr/bin/awk -f
# trim-to-workload.awk: keeps, of `perf script --header` text, the header
# block and the samples that concern the threads of one workload, so that a
# system-wide scheduler capture made on a busy machine stays small:
#
#   - sched_switch samples whose prev_pid or next_pid is a workload thread;
#   - sched_waking/sched_wakeup samples that wake a workload thread (pid=);
#   - any other sample (cpu-clock...) taken in a workload thread.
#
# Workload threads are those whose comm is in -v comms="a b c" in a
# sched_switch payload (prev_comm/next_comm) or a sample header. Two passes
# over the same file: awk -v comms=... -f trim-to-workload.awk F F
function field(name,    m) {
	if (match($0, " " name "=[^ ]+")) {
		m = substr($0, RSTART + length(name) + 2, RLENGTH - length(name) - 2)
		return m
	}
	return ""
}
BEGIN {
	n = split(comms, c, " ")
	for (i = 1; i <= n; i++) want[c[i]] = 1
}
# Pass 1: the workload's tids.
FNR == NR {
	if (/^[^# \t]/ && /sched:sched_switch:/) {
		if (field("prev_comm") in want) tid[field("prev_pid")] = 1
		if (field("next_comm") in want) tid[field("next_pid")] = 1
	}
	next
}
# Pass 2.
/^#/ && !started { print; next }
/^[^ \t]/ {
	started = 1
	keep = 0
	if (/sched:sched_switch:/) {
		keep = (field("prev_pid") in tid) || (field("next_pid") in tid)
	} else if (/sched:sched_wak(ing|eup):/) {
		keep = field("pid") in tid
	} else {
		for (i = 2; i <= NF; i++) {
			if ($i ~ /^\[[0-9]+\]$/ || $i ~ /^[0-9]+\.[0-9]+:$/) {
				t = $(i - 1)
				sub(/.*\//, "", t)
				keep = t in tid
				break
			}
		}
	}
}
keep { print }
