# cprof_loaded_library(TARGET EXPORTS_MAP): the link of a library the project loads into
# other programs (the runtimes through LD_PRELOAD, the GPU tools through HSA_TOOLS_LIB or
# CUDA_INJECTION64_PATH). It exports only what EXPORTS_MAP lists, keeps its static
# dependencies' symbols to itself, resolves every symbol at link time, and carries its own
# copy of libstdc++ (hidden like the rest), so that the program does not load, relocate
# and bind libstdc++.so (and libm) for it: that was about 30% of what sample-run added to
# each exec'd process (docs/benchmarks.md, "Start-up"). libgcc stays shared: one unwinder
# per process, whoever throws. Sanitizer builds keep the shared libstdc++, whose
# operator new the sanitizer replaces.
function(cprof_loaded_library target exports_map)
  target_compile_options(${target} PRIVATE -fvisibility=hidden -fvisibility-inlines-hidden)
  target_link_options(${target} PRIVATE
    "LINKER:--version-script=${exports_map}" "LINKER:--exclude-libs,ALL" "LINKER:-z,defs")
  if(NOT CPROF_SANITIZE)
    target_link_options(${target} PRIVATE -static-libstdc++)
  endif()
  set_target_properties(${target} PROPERTIES PREFIX "lib" LINK_DEPENDS ${exports_map})
endfunction()
