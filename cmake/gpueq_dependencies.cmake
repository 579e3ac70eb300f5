# Dependencies of the library itself: Boost >= 1.81 headers, GMP and threads (Debian: libboost1.81-dev,
# libgmp-dev). Shared by the build and by the installed gpueqConfig.cmake.
include(CMakeFindDependencyMacro)
find_dependency(Boost 1.81 CONFIG)
set(THREADS_PREFER_PTHREAD_FLAG ON)
find_dependency(Threads)  # the checker decides obligations and runs CTAs on a thread pool
if(NOT TARGET gpueq::gmp)
  find_path(GPUEQ_GMP_INCLUDE_DIR gmp.h)
  find_library(GPUEQ_GMP_LIBRARY gmp)
  if(NOT GPUEQ_GMP_INCLUDE_DIR OR NOT GPUEQ_GMP_LIBRARY)
    message(FATAL_ERROR "gpueq needs GMP: apt-get install libgmp-dev")
  endif()
  add_library(gpueq::gmp UNKNOWN IMPORTED)
  set_target_properties(gpueq::gmp PROPERTIES
    IMPORTED_LOCATION "${GPUEQ_GMP_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${GPUEQ_GMP_INCLUDE_DIR}")
endif()
