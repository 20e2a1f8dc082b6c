#!/usr/bin/env bash
# Builds tests/symbolize/fixtures/prog.cpp as every kind of binary symbolize/ must read,
# one folder per kind under OUT. Run by the build (a custom command), not by the tests,
# so that parallel test processes share one set of files.
#
# usage: build_fixtures.sh OUT FIXTURE_SRC_DIR CXX [CLANGXX]
set -euo pipefail
out=$1 src=$(cd "$2" && pwd) cxx=$3 clangxx=${4:-}
mkdir -p "$out" && out=$(cd "$out" && pwd)
prog=$src/prog.cpp
inc=(-I "$src")
rm -rf "$out" && mkdir -p "$out"

build() {  # build KIND COMPILER FLAGS... : OUT/KIND/prog
  local kind=$1 compiler=$2
  shift 2
  mkdir -p "$out/$kind"
  (cd "$out/$kind" && "$compiler" "$@" "${inc[@]}" "$prog" -o prog -Wl,--build-id)
}

build gcc_O2 "$cxx" -O2 -g
build gcc_dwarf4 "$cxx" -O2 -gdwarf-4
build gcc_nopie "$cxx" -O2 -g -no-pie -fno-pie
build gcc_gz "$cxx" -O2 -g -gz
# Split DWARF: compile and link apart, so that the unit is prog.dwo next to prog.
split() {  # split KIND COMPILER FLAGS...
  local kind=$1 compiler=$2
  shift 2
  mkdir -p "$out/$kind"
  (cd "$out/$kind" && "$compiler" "$@" "${inc[@]}" -c "$prog" -o prog.o &&
    "$compiler" "$@" prog.o -o prog -Wl,--build-id && rm prog.o)
}
split gcc_split "$cxx" -O2 -g -gsplit-dwarf
# .dwp packages. Debian bookworm's binutils dwp crashes on DWARF 5 and llvm-dwp 14 spins
# on gcc's DWARF 5 .dwo, so: gcc with DWARF 4 + dwp (GNU index version 2), clang
# (DWARF 5 index) + llvm-dwp below.
split gcc_dwp "$cxx" -O2 -gdwarf-4 -gsplit-dwarf
(cd "$out/gcc_dwp" && timeout 60 dwp -e prog -o prog.dwp && rm -f ./*.dwo)

# Split DWARF whose .dwo is gone.
split split_missing "$cxx" -O2 -g -gsplit-dwarf
rm "$out/split_missing/prog.dwo"

# Files that are FIFOs where debug files are looked for: opening one to read waits for a
# writer that never comes. A .dwo, and a module itself.
split split_fifo "$cxx" -O2 -g -gsplit-dwarf
rm "$out/split_fifo/prog.dwo" && mkfifo "$out/split_fifo/prog.dwo"
mkdir -p "$out/fifo_module" && mkfifo "$out/fifo_module/prog"

mkdir -p "$out/gcc_so"
(cd "$out/gcc_so" && "$cxx" -O2 -g -shared -fPIC "${inc[@]}" "$prog" -o libprog.so -Wl,--build-id)

if [[ -n $clangxx ]]; then
  build clang_O2 "$clangxx" -O2 -g
  build clang_dwarf4 "$clangxx" -O2 -gdwarf-4
  build clang_gz "$clangxx" -O2 -g -gz=zlib
  split clang_split "$clangxx" -O2 -g -gsplit-dwarf
  llvm_dwp=$(command -v llvm-dwp || command -v llvm-dwp-14 || true)
  if [[ -n $llvm_dwp ]]; then
    split clang_dwp "$clangxx" -O2 -g -gsplit-dwarf
    (cd "$out/clang_dwp" && timeout 60 "$llvm_dwp" -e prog -o prog.dwp && rm -f ./*.dwo)
  fi
fi

# Stripped copies of gcc_O2, each with its debug information somewhere else (or nowhere).
copy() { mkdir -p "$out/$1" && cp "$out/gcc_O2/prog" "$out/$1/prog"; }

copy debuglink
(cd "$out/debuglink" && objcopy --only-keep-debug prog prog.debug && strip --strip-all prog &&
  objcopy --add-gnu-debuglink=prog.debug prog)
# ... whose .gnu_debuglink target is a FIFO.
copy debuglink_fifo
(cd "$out/debuglink_fifo" && objcopy --only-keep-debug prog prog.debug &&
  strip --strip-all prog && objcopy --add-gnu-debuglink=prog.debug prog && rm prog.debug &&
  mkfifo prog.debug)

copy buildid
(cd "$out/buildid" && objcopy --only-keep-debug prog prog.debug && strip --strip-all prog)
id=$(readelf -n "$out/buildid/prog" | sed -n 's/.*Build ID: *//p')
mkdir -p "$out/buildid/root/.build-id/${id:0:2}"
mv "$out/buildid/prog.debug" "$out/buildid/root/.build-id/${id:0:2}/${id:2}.debug"
echo "$id" > "$out/buildid/build-id"

copy symtab_only
strip --strip-debug "$out/symtab_only/prog"

copy stripped
strip --strip-all "$out/stripped/prog"

# MiniDebugInfo as Fedora makes it (gdb manual, "MiniDebugInfo").
copy debugdata
(cd "$out/debugdata" &&
  nm -D prog --format=posix --defined-only | awk '{print $1}' | sort > dynsyms &&
  nm prog --format=posix --defined-only | awk '$2 ~ /[TtW]/ {print $1}' | sort > funcsyms &&
  comm -13 dynsyms funcsyms > keep &&
  objcopy --only-keep-debug prog debug &&
  objcopy -S --remove-section .gdb_index --remove-section .comment --keep-symbols=keep debug mini &&
  strip --strip-all -R .comment prog && xz -f mini &&
  objcopy --add-section .gnu_debugdata=mini.xz prog && rm -f dynsyms funcsyms keep debug mini.xz)

# The "rebuilt" binary: same path, other code, so another build-id.
build rebuilt "$cxx" -O2 -g -DFX_REBUILT -fno-inline
readelf -n "$out/gcc_O2/prog" | sed -n 's/.*Build ID: *//p' > "$out/gcc_O2/build-id"

# PLT stubs: libplt.so calls libc and libstdc++ through its PLT, prog calls plt_work
# through its own. Lazy binding (.plt, .plt.got), -z now, IBT stubs (.plt.sec behind a
# lazy .plt that only pushes an index), -fno-plt, a stripped copy (.dynsym names only),
# and a static program whose .plt jumps to glibc's ifuncs (IRELATIVE slots).
plt() {  # plt KIND FLAGS...
  local kind=$1
  shift
  mkdir -p "$out/$kind"
  (cd "$out/$kind" &&
    "$cxx" -O2 -g -fPIC -shared "$@" "$src/plt_lib.cpp" -o libplt.so -Wl,--build-id &&
    "$cxx" -O2 -g "$@" "$src/plt_prog.cpp" -o prog -L. -lplt '-Wl,-rpath,$ORIGIN' -Wl,--build-id)
}
plt plt_lazy
plt plt_now -Wl,-z,now
plt plt_ibt -fcf-protection=full -Wl,-z,ibtplt
plt plt_noplt -fno-plt
mkdir -p "$out/plt_stripped"
cp "$out/plt_lazy/libplt.so" "$out/plt_stripped/libplt.so"
strip --strip-all "$out/plt_stripped/libplt.so"
mkdir -p "$out/plt_static"
# A static C++ program needs libstdc++.a and libc.a; without them the tests skip it.
(cd "$out/plt_static" && "$cxx" -O2 -g -static "$src/plt_prog.cpp" "$src/plt_lib.cpp" -o prog \
  -Wl,--build-id 2>/dev/null) || rm -rf "$out/plt_static"
touch "$out/stamp"
