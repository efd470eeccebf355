# Kernel sources (templates/**/*.cuh) are compiled by NVRTC at run time. They are embedded into the
# binary so it runs on a machine that has no checkout. evotune_embed_sources(TARGET root files...)
# generates a .cpp holding every file as {relative path, contents}; runtime/embedded_sources.h reads it.
function(evotune_embed_sources target root)
  set(out "${CMAKE_CURRENT_BINARY_DIR}/${target}_embedded.cpp")
  set(abs_files "")
  foreach(f ${ARGN})
    list(APPEND abs_files "${root}/${f}")
  endforeach()
  # A list cannot cross the command line as-is (its ';' would split arguments): join it with '|'.
  string(REPLACE ";" "|" files_arg "${ARGN}")
  add_custom_command(
    OUTPUT "${out}"
    COMMAND ${CMAKE_COMMAND} -DROOT=${root} -DOUT=${out} "-DFILES=${files_arg}"
            -P "${PROJECT_SOURCE_DIR}/cmake/EmbedSourcesScript.cmake"
    DEPENDS ${abs_files} "${PROJECT_SOURCE_DIR}/cmake/EmbedSourcesScript.cmake"
    COMMENT "Embedding kernel sources for ${target}"
    VERBATIM)
  add_library(${target} STATIC "${out}" "${PROJECT_SOURCE_DIR}/templates/embedded_sources.cpp")
  target_include_directories(${target} PUBLIC "${PROJECT_SOURCE_DIR}")
endfunction()
