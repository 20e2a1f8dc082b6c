# cprof::warnings: the warning set every target of the project builds with.
add_library(cprof_warnings INTERFACE)
add_library(cprof::warnings ALIAS cprof_warnings)
target_compile_options(cprof_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wcast-align -Wunused
  -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough
  # Designated initializers that leave members at their defaults are intended.
  -Wno-missing-field-initializers)
