#!/usr/bin/awk -f
# make-schedstat.awk: builds, from a real sched_switch + sched_waking
# capture (perf script's default fields), the capture a kernel with
# CONFIG_SCHEDSTATS would give for the input FlameGraph's
# stackcollapse-perf-sched.awk documents:
#
#   perf record -g -e sched:sched_switch -e sched:sched_stat_sleep -e sched:sched_stat_blocked ...
#   perf script -f time,comm,pid,tid,event,ip,sym,dso,trace
#
# Every sched_switch sample is kept, printed with that field set (no [cpu],
# no period, pid/tid, symbols without +offset). A sched_waking of a thread
# that switched out in state S (or D) becomes a sched_stat_sleep (or
# sched_stat_blocked) sample at the same time, in the waker's context (its
# stack), with delay = wakeup time - switch-out time, as the kernel reports
# it; the sched_waking samples themselves are not kept.
#
# Usage: zcat offcpu.txt.gz | awk -f make-schedstat.awk
function field(name) {
	if (match(hdr, " " name "=[^ ]+"))
		return substr(hdr, RSTART + length(name) + 2, RLENGTH - length(name) - 2)
	return ""
}
function flush(    i, p, s) {
	if (hdr == "")
		return
	if (event == "sched:sched_switch:") {
		p = field("prev_pid")
		s = substr(field("prev_state"), 1, 1)
		if (s == "S" || s == "D") {
			out[p] = t; state[p] = s; comm[p] = field("prev_comm")
		} else {
			delete out[p]
		}
		delete out[field("next_pid")]
		printf "%s %s/%s %s: %s %s\n", who, tid, tid, t, event, payload
		for (i = 1; i <= nf; i++) print frame[i]
		print ""
	} else if (event == "sched:sched_waking:") {
		p = field("pid")
		if (p in out) {
			printf "%s %s/%s %s: sched:sched_stat_%s: comm=%s pid=%s delay=%d [ns]\n", who, tid, tid, t,
				(state[p] == "S" ? "sleep" : "blocked"), comm[p], p, int((t - out[p]) * 1e6 + 0.5) * 1000
			for (i = 1; i <= nf; i++) print frame[i]
			print ""
			delete out[p]
		}
	}
	hdr = ""
}
/^#/ { if (!started) print; next }
/^$/ { flush(); next }
/^[ \t]/ {
	# "\tffffffff821f8298 __schedule+0x618 ([kernel.kallsyms])" -> without +0x618
	line = $0
	sub(/^[ \t]+/, "", line)
	sub(/\+0x[0-9a-f]+ \(/, " (", line)
	frame[++nf] = "\t" line
	next
}
{
	started = 1
	hdr = $0; nf = 0
	# comm tid [cpu] time: event: payload
	for (i = 2; i <= NF; i++) {
		if ($i ~ /^[0-9]+\.[0-9]+:$/) {
			t = substr($i, 1, length($i) - 1)
			event = $(i + 1)
			j = ($(i - 1) ~ /^\[/) ? i - 2 : i - 1
			tid = $j
			who = $1
			for (k = 2; k < j; k++) who = who " " $k
			payload = hdr
			sub(/^.*sched:sched_[a-z]+: /, "", payload)
			break
		}
	}
}
END { flush() }
