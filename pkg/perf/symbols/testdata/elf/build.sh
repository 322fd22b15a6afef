#!/bin/sh
# Rebuilds the ELF fixtures of pkg/perf/symbols from fixture.c (gcc, binutils).
#   fixture            PIE with .symtab, .dynsym, PLT and a build-id
#   fixture.stripped   the same without .symtab, with a .gnu_debuglink
#   fixture.debug      its separate debug file (objcopy --only-keep-debug)
#   libfixture.so      the same code as a stripped shared library (.dynsym, PLT)
# After a rebuild, regenerate the golden files (go test -update) and run
# the perf oracle tests (they need perf) to check them.
set -eu
cd "$(dirname "$0")"
gcc -O1 -g0 -fno-omit-frame-pointer -fPIE -pie -Wl,--build-id=sha1 -o fixture fixture.c
objcopy --only-keep-debug fixture fixture.debug
objcopy --strip-all --add-gnu-debuglink=fixture.debug fixture fixture.stripped
# libfixture.so: the same code as a stripped shared library (.dynsym only:
# exported functions and aliases, and the PLT).
gcc -O1 -g0 -fno-omit-frame-pointer -fPIC -shared -Wl,--build-id=sha1 -o libfixture.so fixture.c
strip --strip-all libfixture.so
