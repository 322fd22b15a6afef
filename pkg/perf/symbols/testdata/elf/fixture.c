/* Fixture for pkg/perf/symbols: an executable with what perf's symbol rules
 * treat specially. Built by build.sh (gcc, PIE, build-id). Run it to
 * sample it: fixture [seconds].
 *
 * - aliases at one address (global, weak, local; underscores; lengths)
 * - a NOTYPE label inside a function (overlap), a hidden one (dropped),
 *   one in a data section (kept) and one in a non-text/data section
 * - a function without .size (size 0: its end is fixed up)
 * - an absolute symbol (dropped), an object in a non-allocated section
 * - an IFUNC called through the PLT (IRELATIVE slot: "@plt")
 * - libc calls through the PLT (memcpy@plt, strlen@plt)
 * - C++, Rust legacy, Rust v0 and OCaml names (asm labels), demangled */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) unsigned long work_target(unsigned long x) {
    for (int i = 0; i < 1000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    return x;
}
/* Aliases of work_target: perf keeps one (choose_best_symbol). */
extern unsigned long __work_alias(unsigned long) __attribute__((alias("work_target")));
extern unsigned long work_weak(unsigned long) __attribute__((weak, alias("work_target")));
static unsigned long work_local_longer_name(unsigned long) __attribute__((alias("work_target"), used));

/* C++ and Rust names. */
__attribute__((noinline)) unsigned long cxx_work(unsigned long x) __asm__("_ZN2ns3AccIlE4workEl");
unsigned long cxx_work(unsigned long x) { return work_target(x + 1); }
__attribute__((noinline)) unsigned long rust_legacy(unsigned long x) __asm__("_ZN7mycrate6module4func17h0123456789abcdefE");
unsigned long rust_legacy(unsigned long x) { return work_target(x + 2); }
__attribute__((noinline)) unsigned long rust_v0(unsigned long x) __asm__("_RNvNtCs1234_7mycrate6module2v0");
unsigned long rust_v0(unsigned long x) { return work_target(x + 3); }
__attribute__((noinline)) unsigned long ocaml_fn(unsigned long x) __asm__("camlStdlib__array__map_154");
unsigned long ocaml_fn(unsigned long x) { return work_target(x + 4); }

/* An IFUNC: calls go through the PLT's IRELATIVE slot. */
static unsigned long pick_impl(unsigned long x) { return work_target(x + 5); }
static void *resolve_picked(void) { return (void *)pick_impl; }
unsigned long picked(unsigned long x) __attribute__((ifunc("resolve_picked")));

/* Hand-written functions: a global label inside a sized function (the
 * symbols overlap), a hidden label, a function without .size, a label in
 * .data, an absolute symbol and an object outside allocated sections. */
__asm__(
    ".text\n"
    ".globl asm_sized\n"
    ".type asm_sized, @function\n"
    "asm_sized:\n"
    "  mov %rdi, %rax\n"
    "  add $1, %rax\n"
    ".globl asm_inner_label\n"
    "asm_inner_label:\n"
    "  add $2, %rax\n"
    ".globl asm_hidden_label\n"
    ".hidden asm_hidden_label\n"
    "asm_hidden_label:\n"
    "  add $3, %rax\n"
    "  ret\n"
    ".size asm_sized, .-asm_sized\n"
    ".globl asm_nosize\n"
    ".type asm_nosize, @function\n"
    "asm_nosize:\n"
    "  lea 7(%rdi), %rax\n"
    "  ret\n"
    ".data\n"
    ".globl data_label\n"
    "data_label: .quad 42\n"
    ".globl abs_symbol\n"
    ".set abs_symbol, 0x1234\n"
    ".section .fixture_note, \"\", @progbits\n"
    ".globl unallocated_object\n"
    ".type unallocated_object, @object\n"
    "unallocated_object: .quad 1\n"
    ".size unallocated_object, 8\n"
    ".text\n");
unsigned long asm_sized(unsigned long);
unsigned long asm_nosize(unsigned long);

int main(int argc, char **argv) {
    double secs = argc > 1 ? atof(argv[1]) : 0;
    char a[256], b[256];
    memset(a, 'x', sizeof a - 1);
    a[sizeof a - 1] = 0;
    time_t end = time(NULL) + (time_t)secs;
    do {
        memcpy(b, a, sizeof a);
        sink += strlen(b);
        sink += __work_alias(sink) + work_weak(1) + cxx_work(2) + rust_legacy(3) + rust_v0(4) +
                ocaml_fn(5) + picked(6) + asm_sized(7) + asm_nosize(8);
    } while (time(NULL) < end);
    printf("%lu\n", sink % 10);
    return 0;
}
