# Install rules: headers, the INTERFACE target and a package config so that
# find_package(gpueq) works for consumers.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
set(GPUEQ_CMAKE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/gpueq")
install(DIRECTORY include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS gpueq EXPORT gpueqTargets)
if(TARGET gpueq_compiled)
  install(TARGETS gpueq_compiled EXPORT gpueqTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
if(TARGET gpueq_spec_json)
  install(TARGETS gpueq_spec_json EXPORT gpueqTargets)
  set(GPUEQ_WITH_SPEC_JSON ON)
else()
  set(GPUEQ_WITH_SPEC_JSON OFF)
endif()
# The kernel corpus (CUDA, PTX and pair specs), so that an installed gpueq can check its examples.
install(DIRECTORY examples/kernels DESTINATION ${CMAKE_INSTALL_DATADIR}/gpueq)
install(EXPORT gpueqTargets NAMESPACE gpueq:: DESTINATION ${GPUEQ_CMAKE_DIR})
configure_package_config_file(cmake/gpueqConfig.cmake.in
  "${PROJECT_BINARY_DIR}/gpueqConfig.cmake" INSTALL_DESTINATION ${GPUEQ_CMAKE_DIR})
write_basic_package_version_file("${PROJECT_BINARY_DIR}/gpueqConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion ARCH_INDEPENDENT)
install(FILES "${PROJECT_BINARY_DIR}/gpueqConfig.cmake" "${PROJECT_BINARY_DIR}/gpueqConfigVersion.cmake"
  cmake/gpueq_dependencies.cmake DESTINATION ${GPUEQ_CMAKE_DIR})
