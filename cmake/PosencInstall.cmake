# Install rules and the CMake package of posenc (included last from the
# top-level CMakeLists.txt, once every target exists).
#
#   cmake --install build --prefix <prefix>
#
# installs
#   bin/posenc-opt
#   lib/libPosencCAPI.so, lib/libPosencPlugin.so (mlir-opt plugin),
#   lib/libposenc_cuda_runtime.so (when built),
#   lib/libPosenc*.a (every posenc static library)
#   include/posenc, include/posenc-c (with the generated .inc headers)
#   lib/cmake/posenc/PosencConfig.cmake (find_package(Posenc), targets
#     Posenc::<target>, e.g. Posenc::PosencDialect, Posenc::PosencCAPI)
#   ${POSENC_PYTHON_INSTALL_DIR}/posenc (the Python package; it loads
#     lib/libPosencCAPI.so through a relative symlink next to it)

include(CMakePackageConfigHelpers)
include(GNUInstallDirs)

if(NOT DEFINED POSENC_VERSION)
  set(POSENC_VERSION 0.1.0)
endif()
set(POSENC_INSTALL_CMAKE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/posenc" CACHE STRING
  "Where the posenc CMake package is installed, relative to the prefix")
set(POSENC_PYTHON_INSTALL_DIR "lib/python3/dist-packages" CACHE STRING
  "Where the posenc Python package is installed, relative to the prefix")

# Every posenc static library under lib/, found rather than listed, so that a
# library added later is installed and exported with the ones it links.
function(posenc_collect_static_libraries dir out)
  get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
  set(result)
  foreach(target IN LISTS targets)
    get_target_property(type ${target} TYPE)
    if(type STREQUAL "STATIC_LIBRARY" AND target MATCHES "^Posenc")
      list(APPEND result ${target})
    endif()
  endforeach()
  get_property(subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
  foreach(subdir IN LISTS subdirs)
    posenc_collect_static_libraries("${subdir}" sub)
    list(APPEND result ${sub})
  endforeach()
  set(${out} ${result} PARENT_SCOPE)
endfunction()
posenc_collect_static_libraries("${PROJECT_SOURCE_DIR}/lib" POSENC_STATIC_LIBRARIES)

# Consumers include the posenc headers by full path from <prefix>/include;
# the MLIR/LLVM include dirs are added by PosencConfig.cmake.
foreach(target IN LISTS POSENC_STATIC_LIBRARIES ITEMS PosencCAPI)
  set_property(TARGET ${target} APPEND PROPERTY
    INTERFACE_INCLUDE_DIRECTORIES "$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>")
endforeach()

# The installed binaries find libMLIR.so/libLLVM.so where the build did.
set_target_properties(posenc-opt PROPERTIES INSTALL_RPATH "${LLVM_LIBRARY_DIR}")

set(POSENC_INSTALLED_TARGETS posenc-opt PosencCAPI ${POSENC_STATIC_LIBRARIES})
if(TARGET PosencPlugin)
  list(APPEND POSENC_INSTALLED_TARGETS PosencPlugin)
endif()
# The mgpu* runtime that GPU host code links (posenc.compile(target="cuda")
# finds it next to libPosencCAPI.so), when the CUDA toolkit was found.
if(TARGET posenc_cuda_runtime)
  list(APPEND POSENC_INSTALLED_TARGETS posenc_cuda_runtime)
endif()
install(TARGETS ${POSENC_INSTALLED_TARGETS}
  EXPORT PosencTargets
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})

# Headers: the sources and the tablegen outputs next to them.
install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/posenc" "${PROJECT_SOURCE_DIR}/include/posenc-c"
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h" PATTERN "*.td")
install(DIRECTORY "${PROJECT_BINARY_DIR}/include/posenc"
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.inc" PATTERN "*.h"
  PATTERN "CMakeFiles" EXCLUDE)

# The CMake package.
install(EXPORT PosencTargets
  NAMESPACE Posenc::
  FILE PosencTargets.cmake
  DESTINATION ${POSENC_INSTALL_CMAKE_DIR})
set(POSENC_MLIR_DIR "${MLIR_DIR}")
configure_package_config_file(
  "${PROJECT_SOURCE_DIR}/cmake/PosencConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/cmake/PosencConfig.cmake"
  INSTALL_DESTINATION ${POSENC_INSTALL_CMAKE_DIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_BINDIR)
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/cmake/PosencConfigVersion.cmake"
  VERSION ${POSENC_VERSION}
  COMPATIBILITY SameMajorVersion)
install(FILES
  "${PROJECT_BINARY_DIR}/cmake/PosencConfig.cmake"
  "${PROJECT_BINARY_DIR}/cmake/PosencConfigVersion.cmake"
  DESTINATION ${POSENC_INSTALL_CMAKE_DIR})

# The Python package, and a relative link to the C API library next to it
# (posenc.compiler looks for libPosencCAPI.so in its own directory).
install(DIRECTORY "${PROJECT_SOURCE_DIR}/python/posenc"
  DESTINATION ${POSENC_PYTHON_INSTALL_DIR}
  FILES_MATCHING PATTERN "*.py"
  PATTERN "__pycache__" EXCLUDE)
install(CODE "
  set(posenc_prefix \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}\")
  set(posenc_package \"\${posenc_prefix}/${POSENC_PYTHON_INSTALL_DIR}/posenc\")
  file(RELATIVE_PATH posenc_target \"\${posenc_package}\"
       \"\${posenc_prefix}/${CMAKE_INSTALL_LIBDIR}/$<TARGET_FILE_NAME:PosencCAPI>\")
  message(STATUS \"Installing: \${posenc_package}/$<TARGET_FILE_NAME:PosencCAPI> -> \${posenc_target}\")
  file(REMOVE \"\${posenc_package}/$<TARGET_FILE_NAME:PosencCAPI>\")
  file(CREATE_LINK \"\${posenc_target}\" \"\${posenc_package}/$<TARGET_FILE_NAME:PosencCAPI>\" SYMBOLIC)
")
