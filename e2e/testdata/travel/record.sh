#!/usr/bin/env bash
# How the time-travel capture in this directory was made (maintainers only;
# needs root, perf, gcc): one 120 s window of scripts/perf-timetravel, mostly
# idle, with flamekit_burst (testdata/perf/src/burst.c) spinning on every CPU
# for 2 s about 70 s in, announced in the kernel log. Writes
# perf-HOST-DATE-120s.txt.gz (perf script --header text) and dmesg.txt in
# this directory, or in the directory given as argument.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
here=$(cd "${1:-$(dirname "$0")}" && pwd)
work=$(mktemp -d /tmp/flamekit-travel.XXXXXX)
trap 'rm -rf "$work"' EXIT
gcc -O1 -g -fno-omit-frame-pointer -pthread -o "$work/flamekit_burst" "$root/testdata/perf/src/burst.c"

# Wait (up to 10 minutes) for 3 s with the CPUs at least 90% idle.
for ((i = 0; i < 200; i++)); do
	read -r -a a < <(grep '^cpu ' /proc/stat)
	sleep 3
	read -r -a b < <(grep '^cpu ' /proc/stat)
	idle=$(((b[4] + b[5]) - (a[4] + a[5])))
	total=0
	for j in 1 2 3 4 5 6 7 8; do total=$((total + b[j] - a[j])); done
	((total > 0 && idle * 100 / total >= 90)) && break
done

"$root/scripts/perf-timetravel" -o "$work/tt" -w 120 -n 1 &
rec=$!
sleep 70
echo "flamekit_burst: 2 s spin on every CPU starts wall=$(date +%s.%N)" >/dev/kmsg
nice -n -15 "$work/flamekit_burst" 2 >/dev/null
wait "$rec"
data=$(cd "$work/tt" && ls perf-*.data)
perf script --header -i "$work/tt/$data" 2>/dev/null | gzip -9n >"$here/${data%.data}.txt.gz"
dmesg | grep -E "perf-timetravel: window $data|flamekit_burst: 2 s spin" | tail -2 >"$here/dmesg.txt"
echo "wrote $here/${data%.data}.txt.gz ($(stat -c %s "$here/${data%.data}.txt.gz") bytes) and dmesg.txt"
