#!/usr/bin/awk -f
# keep-comms.awk: keeps, of `perf script --header` text, the header block
# and the samples of the processes whose comm (the first word of the sample
# line) is in -v comms="a b c" or starts with one of -v prefixes="x y", so
# that a system-wide capture made on a machine shared with unrelated work
# holds the workload only. Every kept line is perf's, verbatim.
#   awk -v comms="trainer swapper" -v prefixes="kworker/" -f keep-comms.awk F
BEGIN {
	n = split(comms, c, " ")
	for (i = 1; i <= n; i++) want[c[i]] = 1
	np = split(prefixes, pre, " ")
}
function wanted(comm,    i) {
	if (comm in want) return 1
	for (i = 1; i <= np; i++)
		if (index(comm, pre[i]) == 1) return 1
	return 0
}
/^#/ { print; next }
/^[^ \t]/ { keep = wanted($1) }
keep { print }
