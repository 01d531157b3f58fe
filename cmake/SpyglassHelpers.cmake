# spyglass_glob_library(NAME DIR [LIBS ...]): a static library of every .cpp/.h in DIR (not recursive).
# Globbing with CONFIGURE_DEPENDS lets each subsystem add files without touching CMake.
function(spyglass_glob_library name dir)
  cmake_parse_arguments(ARG "" "" "LIBS" ${ARGN})
  file(GLOB _sources CONFIGURE_DEPENDS ${dir}/*.cpp ${dir}/*.h)
  add_library(${name} STATIC ${_sources})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(${name} PUBLIC ${ARG_LIBS} PRIVATE spyglass_warnings)
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
endfunction()
