#!/bin/sh
# Rebuilds the ELF fixtures of pkg/symbols from fixture.c (gcc, binutils).
#   fixture            PIE with .symtab, .dynsym, PLT and a build-id
#   fixture.stripped   the same without .symtab, with a .gnu_debuglink
#   fixture.debug      its separate debug file (objcopy --only-keep-debug)
# After a rebuild, regenerate the golden files (go test -update) and run
# the perf oracle tests (they need perf) to check them.
set -eu
cd "$(dirname "$0")"
gcc -O1 -g0 -fno-omit-frame-pointer -fPIE -pie -Wl,--build-id=sha1 -o fixture fixture.c
objcopy --only-keep-debug fixture fixture.debug
objcopy --strip-all --add-gnu-debuglink=fixture.debug fixture fixture.stripped
