#!/usr/bin/env python3
"""Adapt bcc 0.26's offcputime / offwaketime to kernels without kprobes.

Usage: adapt-bcc-offcpu.py /usr/sbin/offcputime-bpfcc OUT
       adapt-bcc-offcpu.py /usr/sbin/offwaketime-bpfcc OUT

The bcc tools attach kprobes to finish_task_switch and try_to_wake_up. The
kernel the flamekit captures were made on is built without CONFIG_KPROBES
(and without fentry), so they cannot attach. This script writes a copy of a
tool whose BPF program (the C text in bpf_text) is replaced by one that uses
the sched_switch and sched_waking raw tracepoints instead; everything else,
in particular the Python code that prints the folded output, is bcc's own,
unchanged.

At sched_switch the running task is the one going off CPU, not the one
coming back as in finish_task_switch, so a task's stacks and name are
recorded when it leaves the CPU and used when it comes back (its stacks
cannot change while it sleeps). The waker is recorded at sched_waking, in
the waker's context, as try_to_wake_up sees it. The placeholders the Python
code fills in (THREAD_FILTER, STATE_FILTER, USER_STACK_GET, ...) are kept.
"""
import re
import sys

OFFCPU_C = r'''
#include <uapi/linux/ptrace.h>
#include <linux/sched.h>

#define MINBLOCK_US    MINBLOCK_US_VALUEULL
#define MAXBLOCK_US    MAXBLOCK_US_VALUEULL

struct key_t {
    u32 pid;
    u32 tgid;
    int user_stack_id;
    int kernel_stack_id;
    char name[TASK_COMM_LEN];
};
BPF_HASH(counts, struct key_t);

struct start_t {
    u64 ts;
    int user_stack_id;
    int kernel_stack_id;
    char name[TASK_COMM_LEN];
};
BPF_HASH(start, u32, struct start_t);
BPF_STACK_TRACE(stack_traces, STACK_STORAGE_SIZE);

struct warn_event_t {
    u32 pid;
    u32 tgid;
    u32 t_start;
    u32 t_end;
};
BPF_PERF_OUTPUT(warn_events);

RAW_TRACEPOINT_PROBE(sched_switch) {
    struct task_struct *prev = (struct task_struct *)ctx->args[1];
    struct task_struct *next = (struct task_struct *)ctx->args[2];
    u32 pid = prev->pid;
    u32 tgid = prev->tgid;

    // prev leaves the CPU: it is the current task, record its stacks
    if ((THREAD_FILTER) && (STATE_FILTER)) {
        struct start_t s = {};
        s.ts = bpf_ktime_get_ns();
        s.user_stack_id = USER_STACK_GET;
        s.kernel_stack_id = KERNEL_STACK_GET;
        bpf_get_current_comm(&s.name, sizeof(s.name));
        start.update(&pid, &s);
    }

    // next comes back: its off-CPU interval ends
    pid = next->pid;
    tgid = next->tgid;
    struct start_t *sp = start.lookup(&pid);
    if (sp == 0) {
        return 0;        // missed start or filtered
    }
    u64 t_start = sp->ts;
    u64 t_end = bpf_ktime_get_ns();
    struct key_t key = {};
    key.pid = pid;
    key.tgid = tgid;
    key.user_stack_id = sp->user_stack_id;
    key.kernel_stack_id = sp->kernel_stack_id;
    __builtin_memcpy(&key.name, sp->name, TASK_COMM_LEN);
    start.delete(&pid);
    if (t_start > t_end) {
        struct warn_event_t event = {
            .pid = pid,
            .tgid = tgid,
            .t_start = t_start,
            .t_end = t_end,
        };
        warn_events.perf_submit(ctx, &event, sizeof(event));
        return 0;
    }
    u64 delta = (t_end - t_start) / 1000;
    if ((delta < MINBLOCK_US) || (delta > MAXBLOCK_US)) {
        return 0;
    }
    counts.increment(key, delta);
    return 0;
}
'''

OFFWAKE_C = r'''
#include <uapi/linux/ptrace.h>
#include <linux/sched.h>

#define MINBLOCK_US    MINBLOCK_US_VALUEULL
#define MAXBLOCK_US    MAXBLOCK_US_VALUEULL

struct key_t {
    char waker[TASK_COMM_LEN];
    char target[TASK_COMM_LEN];
    s64 w_k_stack_id;
    s64 w_u_stack_id;
    s64 t_k_stack_id;
    s64 t_u_stack_id;
    u64 t_pid;
    u64 t_tgid;
    u32 w_pid;
    u32 w_tgid;
};
BPF_HASH(counts, struct key_t);

struct start_t {
    u64 ts;
    int k_stack_id;
    int u_stack_id;
    char name[TASK_COMM_LEN];
};
BPF_HASH(start, u32, struct start_t);

struct wokeby_t {
    char name[TASK_COMM_LEN];
    int k_stack_id;
    int u_stack_id;
    int w_pid;
    int w_tgid;
};
BPF_HASH(wokeby, u32, struct wokeby_t);

BPF_STACK_TRACE(stack_traces, STACK_STORAGE_SIZE);

RAW_TRACEPOINT_PROBE(sched_waking) {
    struct task_struct *p = (struct task_struct *)ctx->args[0];
    u32 pid = p->pid;
    u32 tgid = p->tgid;

    if (!((THREAD_FILTER) && (STATE_FILTER))) {
        return 0;
    }

    // the current task is the waker
    struct wokeby_t woke = {};
    bpf_get_current_comm(&woke.name, sizeof(woke.name));
    woke.k_stack_id = KERNEL_STACK_GET;
    woke.u_stack_id = USER_STACK_GET;
    woke.w_pid = bpf_get_current_pid_tgid();
    woke.w_tgid = bpf_get_current_pid_tgid() >> 32;

    wokeby.update(&pid, &woke);
    return 0;
}

RAW_TRACEPOINT_PROBE(sched_switch) {
    struct task_struct *p = (struct task_struct *)ctx->args[1];
    struct task_struct *n = (struct task_struct *)ctx->args[2];
    u32 pid = p->pid;
    u32 tgid = p->tgid;
    u64 ts = bpf_ktime_get_ns();

    // p leaves the CPU: it is the current task, record its stacks
    if ((THREAD_FILTER) && (STATE_FILTER)) {
        struct start_t s = {};
        s.ts = ts;
        s.k_stack_id = KERNEL_STACK_GET;
        s.u_stack_id = USER_STACK_GET;
        bpf_get_current_comm(&s.name, sizeof(s.name));
        start.update(&pid, &s);
    }

    // n comes back: its off-CPU interval ends
    pid = n->pid;
    tgid = n->tgid;
    struct start_t *sp = start.lookup(&pid);
    if (sp == 0) {
        return 0;
    }
    u64 delta = ts - sp->ts;
    struct key_t key = {};
    __builtin_memcpy(&key.target, sp->name, TASK_COMM_LEN);
    key.t_pid = pid;
    key.t_tgid = tgid;
    key.t_k_stack_id = sp->k_stack_id;
    key.t_u_stack_id = sp->u_stack_id;
    start.delete(&pid);
    delta = delta / 1000;
    if ((delta < MINBLOCK_US) || (delta > MAXBLOCK_US)) {
        return 0;
    }

    struct wokeby_t *woke = wokeby.lookup(&pid);
    if (woke) {
        key.w_k_stack_id = woke->k_stack_id;
        key.w_u_stack_id = woke->u_stack_id;
        key.w_pid = woke->w_pid;
        key.w_tgid = woke->w_tgid;
        __builtin_memcpy(&key.waker, woke->name, TASK_COMM_LEN);
        wokeby.delete(&pid);
    }

    counts.increment(key, delta);
    return 0;
}
'''


def main():
    src, out = sys.argv[1], sys.argv[2]
    text = open(src).read()
    c = OFFWAKE_C if "offwaketime" in src else OFFCPU_C
    start = text.index('bpf_text = """') + len('bpf_text = """')
    end = text.index('"""', start)
    text = text[:start] + c + text[end:]
    # drop the kprobe attachments and the "no kprobe matched" check
    text, n = re.subn(r'b\.attach_kprobe\([^)]*\)\n', '', text)
    if n == 0:
        sys.exit("adapt-bcc-offcpu: no attach_kprobe found in " + src)
    text = re.sub(r'matched = b\.num_open_kprobes\(\)\nif matched == 0:\n(    .*\n)+', '', text)
    with open(out, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
