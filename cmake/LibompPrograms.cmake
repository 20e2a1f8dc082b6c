# Programs built by clang against LLVM's OpenMP runtime (libomp), next to the project's
# GCC build: the causal runtime marks libomp's waits through OMPT (docs/causal.md "Waits
# that spin"), and the tests and experiments check it on such programs.
#
#   cprof_libomp_available(VAR)    VAR := ON when clang++ builds and links with libomp
#   cprof_add_libomp_program(TARGET OUTPUT SOURCE [FLAGS...])
#                                  builds OUTPUT from SOURCE with clang++ -fopenmp=libomp,
#                                  -O2 -fomit-frame-pointer, the project's include/ and
#                                  FLAGS (-g by default), as the custom target TARGET.
find_program(CPROF_CLANGXX NAMES clang++ clang++-14)

function(cprof_libomp_available var)
  if(NOT DEFINED CPROF_LIBOMP_WORKS)
    set(works OFF)
    if(CPROF_CLANGXX)
      set(dir ${CMAKE_BINARY_DIR}/libomp-probe)
      file(WRITE ${dir}/probe.cpp
        "#include <omp.h>\nint main() { return omp_get_max_threads() > 0 ? 0 : 1; }\n")
      execute_process(COMMAND ${CPROF_CLANGXX} -fopenmp=libomp probe.cpp -o probe
        WORKING_DIRECTORY ${dir} RESULT_VARIABLE result OUTPUT_QUIET ERROR_QUIET)
      if(result EQUAL 0)
        set(works ON)
      endif()
    endif()
    set(CPROF_LIBOMP_WORKS ${works} CACHE INTERNAL "clang++ builds with libomp")
    if(NOT works)
      message(STATUS "clang++ cannot build with libomp (libomp-dev): its programs are not built")
    endif()
  endif()
  set(${var} ${CPROF_LIBOMP_WORKS} PARENT_SCOPE)
endfunction()

function(cprof_add_libomp_program target output source)
  set(flags ${ARGN})
  if(NOT flags)
    set(flags -g)
  endif()
  get_filename_component(dir ${output} DIRECTORY)
  add_custom_command(OUTPUT ${output}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${dir}
    COMMAND ${CPROF_CLANGXX} -std=c++20 -O2 -fomit-frame-pointer -fopenmp=libomp ${flags}
      -I${PROJECT_SOURCE_DIR}/include -MD -MF ${output}.d ${source} -o ${output}
    DEPENDS ${source}
    DEPFILE ${output}.d
    COMMENT "clang++ -fopenmp=libomp: ${target}" VERBATIM)
  add_custom_target(${target} ALL DEPENDS ${output})
endfunction()
