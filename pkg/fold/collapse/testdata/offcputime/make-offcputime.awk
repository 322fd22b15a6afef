#!/usr/bin/awk -f
# make-offcputime.awk: builds, from a real sched_switch capture (perf
# script's default fields), what `perf record --off-cpu` would have written
# for the same run (this perf lacks the BPF skeletons it needs): samples of
# the event offcpu-time, whose period is the time a thread spent off CPU in
# state S or D with one user stack, summed per (thread, stack), printed
#
#   sleeper 6015 [000] 18446744069.414584:  100106000 offcpu-time:
#   	1195 sleep_100ms+0x18 (/tmp/offcpu)
#
# at the end of the run with perf's dummy time (about 18446744069.41 s),
# except intervals longer than 500 ms, which perf 6.15 and later write at
# once, with their real time (--off-cpu-thresh). Only user frames are kept,
# as the BPF program records them; only the threads named in -v comms.
#
# Usage: zcat offcpu.txt.gz | awk -v comms="sleeper piper diskio" -f make-offcputime.awk
function field(name) {
	if (match(hdr, " " name "=[^ ]+"))
		return substr(hdr, RSTART + length(name) + 2, RLENGTH - length(name) - 2)
	return ""
}
function emit(c, tid, t, period, stack) {
	printf "%s %s [000] %s: %12d offcpu-time:\n%s\n", c, tid, t, period, stack
}
function flush(    p, s, n, key) {
	if (hdr == "" || event != "sched:sched_switch:")
		return
	p = field("prev_pid")
	s = substr(field("prev_state"), 1, 1)
	if ((field("prev_comm") in want) && (s == "S" || s == "D")) {
		out[p] = t; stk[p] = user; cm[p] = field("prev_comm")
	}
	n = field("next_pid")
	if (n in out) {
		d = int((t - out[n]) * 1e6 + 0.5) * 1000
		if (d > 500000000) {
			emit(cm[n], n, t, d, stk[n])
		} else if (d > 0) {
			key = cm[n] SUBSEP n SUBSEP stk[n]
			if (!(key in sum)) order[++nkeys] = key
			sum[key] += d
		}
		delete out[n]
	}
}
BEGIN {
	n = split(comms, c, " ")
	for (i = 1; i <= n; i++) want[c[i]] = 1
}
# The header: the capture's, but for what perf record --off-cpu changes.
/^# (cmdline|event|time of last sample|sample duration) :/ { next }
/^# time of first sample :/ {
	print "# cmdline : /usr/bin/perf record --off-cpu -a -g -- ./offcpu (hand-built from a sched_switch capture)"
	print "# event : name = cpu-clock:pppH, , id = { 1, 2 }, type = 1 (PERF_TYPE_SOFTWARE), size = 136, { sample_period, sample_freq } = 4000"
	print "# event : name = offcpu-time, , id = { 3 }, type = 1 (PERF_TYPE_SOFTWARE), size = 136, config = 0xa (PERF_COUNT_SW_BPF_OUTPUT)"
	print
	print "# time of last sample : 18446744069.414584"
	next
}
/^#/ { if (!started) print; next }
/^$/ { flush(); hdr = ""; next }
/^[ \t]/ {
	if ($0 !~ /\[kernel\.kallsyms\]/) user = user $0 "\n"
	next
}
{
	started = 1
	hdr = $0; user = ""
	for (i = 2; i <= NF; i++)
		if ($i ~ /^[0-9]+\.[0-9]+:$/) {
			t = substr($i, 1, length($i) - 1)
			event = $(i + 1)
			break
		}
}
END {
	flush()
	for (i = 1; i <= nkeys; i++) {
		split(order[i], k, SUBSEP)
		emit(k[1], k[2], "18446744069.414584", sum[order[i]], k[3])
	}
}
