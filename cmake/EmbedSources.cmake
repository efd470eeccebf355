# Kernel sources (.cuh files under harness/kernels and families/*/kernels) are compiled by NVRTC at run
# time. They are embedded into the binary so it runs on a machine that has no checkout:
#   evotune_embed_sources(TARGET NAME PATH [NAME PATH ...])
# generates a .cpp holding every file as {NAME, contents}; runtime/embedded_sources.h reads it. NAME is
# what kernel code #includes and what every cubin-cache key and sources digest records ("attention/params.h"),
# so it stays put when a file moves.
function(evotune_embed_sources target)
  set(out "${CMAKE_CURRENT_BINARY_DIR}/${target}_embedded.cpp")
  set(entries "")
  set(abs_files "")
  set(pairs ${ARGN})
  list(LENGTH pairs count)
  math(EXPR last "${count} - 1")
  foreach(i RANGE 0 ${last} 2)
    math(EXPR j "${i} + 1")
    list(GET pairs ${i} name)
    list(GET pairs ${j} path)
    list(APPEND abs_files "${path}")
    list(APPEND entries "${name}=${path}")
  endforeach()
  # A list cannot cross the command line as-is (its ';' would split arguments): join it with '|'.
  string(REPLACE ";" "|" entries_arg "${entries}")
  add_custom_command(
    OUTPUT "${out}"
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} "-DENTRIES=${entries_arg}"
            -P "${PROJECT_SOURCE_DIR}/cmake/EmbedSourcesScript.cmake"
    DEPENDS ${abs_files} "${PROJECT_SOURCE_DIR}/cmake/EmbedSourcesScript.cmake"
    COMMENT "Embedding kernel sources for ${target}"
    VERBATIM)
  add_library(${target} STATIC "${out}" "${PROJECT_SOURCE_DIR}/runtime/embedded_sources.cpp")
  target_include_directories(${target} PUBLIC "${PROJECT_SOURCE_DIR}")
endfunction()
