# One Debian package with everything `cmake --install` installs: the SPANK plugin (into
# Slurm's plugin directory), the CLI, the kernels, the docs and the plugstack example.
#   cmake --build --preset default --target package   (or: cd build/default && cpack -G DEB)
# Include it at the end of the top-level CMakeLists.txt, after every install() rule.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME hetscale)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_CONTACT "hetscale maintainers <hetscale@localhost>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
# Library dependencies (libtomlplusplus3, libstdc++...) come from dpkg-shlibdeps. The
# plugin is built against one Slurm release's spank.h and must be loaded by that release:
# pin the Slurm packages to the major.minor of the headers we built with.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_STRIP_FILES ON)
find_path(SLURM_INCLUDE_DIR slurm/spank.h)
if(SLURM_INCLUDE_DIR)
  file(STRINGS ${SLURM_INCLUDE_DIR}/slurm/slurm_version.h _hetscale_slurm_number
       REGEX "^#define SLURM_VERSION_NUMBER 0x[0-9a-fA-F]+")
endif()
if(_hetscale_slurm_number MATCHES "0x([0-9a-fA-F][0-9a-fA-F])([0-9a-fA-F][0-9a-fA-F])")
  math(EXPR _major "0x${CMAKE_MATCH_1}")
  math(EXPR _minor "0x${CMAKE_MATCH_2}")
  math(EXPR _next "${_minor} + 1")
  set(_mm "${_major}.${_minor}")
  if(_minor LESS 10)
    set(_mm "${_major}.0${_minor}")
  endif()
  set(_next_mm "${_major}.${_next}")
  if(_next LESS 10)
    set(_next_mm "${_major}.0${_next}")
  endif()
  set(CPACK_DEBIAN_PACKAGE_DEPENDS
      "slurm-wlm-basic-plugins (>= ${_mm}), slurm-wlm-basic-plugins (<< ${_next_mm})")
endif()
include(CPack)
