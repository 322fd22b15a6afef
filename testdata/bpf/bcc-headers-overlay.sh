#!/usr/bin/env bash
# Builds kernel headers that bcc can compile against on a kernel that ships
# none (no /lib/modules/$(uname -r)/build, no CONFIG_IKHEADERS): DIR/plain
# and DIR/offcpu, to be given to bcc as BCC_KERNEL_SOURCE (scripts/capture-bpf
# does, with BCC_HEADERS=DIR).
#
# Usage: testdata/bpf/bcc-headers-overlay.sh DIR
#
# Needs Debian's linux-headers-amd64 (any version: 6.1 on bookworm), bpftool
# and gcc, and the running kernel's BTF (/sys/kernel/btf/vmlinux).
#
# DIR/plain is Debian's headers, linked into one tree (Debian splits them in
# two); profile and stackcount read no kernel structure and use it.
# DIR/offcpu is the same except linux/sched.h: bcc's
# offcputime and offwaketime read four struct task_struct fields (__state,
# flags, pid, tgid) whose offsets differ between Debian's kernel and the
# running one, so the overlay's sched.h includes Debian's under another
# struct name and defines a struct task_struct holding just those fields at
# the running kernel's offsets, read from its BTF. Tools that read no
# task_struct field (profile, stackcount) are unaffected.
set -euo pipefail
dir=${1:?usage: bcc-headers-overlay.sh DIR}
common=$(printf "%s\n" /usr/src/linux-headers-*-common | sort -V | tail -1)
arch=${common%-common}-amd64
[[ -d $common && -d $arch ]] || { echo "no Debian linux-headers under /usr/src" >&2; exit 1; }

# Byte offsets of the four fields in the running kernel, from its BTF.
offsets=$(bpftool btf dump file /sys/kernel/btf/vmlinux format raw |
	awk '/^\[[0-9]+\] STRUCT .task_struct. /{f=1; next} f && /^\[/{f=0}
	     f && match($0, /bits_offset=[0-9]+/) {
	         name=$1; gsub("\x27", "", name)
	         off[name]=substr($0, RSTART+12, RLENGTH-12)/8
	     }
	     END {print off["__state"], off["flags"], off["pid"], off["tgid"]}')
read -r state flags pid tgid <<<"$offsets"
[[ -n $tgid && $tgid -eq $((pid + 4)) ]] || { echo "unexpected task_struct layout: $offsets" >&2; exit 1; }

rm -rf "$dir"
mkdir -p "$dir/plain" "$dir/offcpu"
for d in plain offcpu; do
	cp -rs "$common/." "$dir/$d/"
	cp -rsf "$arch/." "$dir/$d/"
done
rm "$dir/offcpu/include/linux/sched.h"
cat >"$dir/offcpu/include/linux/sched.h" <<H
/* flamekit capture overlay (testdata/bpf/bcc-headers-overlay.sh): Debian's
 * headers, but the struct task_struct fields bcc's offcputime and
 * offwaketime read, at the running kernel's offsets (from its BTF). */
#ifndef FLAMEKIT_SCHED_OVERLAY
#define FLAMEKIT_SCHED_OVERLAY
#define task_struct task_struct_debian
#include "$common/include/linux/sched.h"
#undef task_struct
struct task_struct {
	char __pad0[$state];
	unsigned int __state;
	char __pad1[$flags - $state - 4];
	unsigned int flags;
	char __pad2[$pid - $flags - 4];
	pid_t pid;
	pid_t tgid;
};
#endif
H
