# What the build knows about the Slurm it builds the SPANK plugin for, found at configure
# time: its headers (SLURM_INCLUDE_DIR), its release (HETSCALE_SLURM_RELEASE, e.g. 22.05,
# and HETSCALE_SLURM_NEXT_RELEASE, 22.06: a plugin loads only into the release whose
# spank.h it was built with), the directory Slurm loads plugins from
# (HETSCALE_SLURM_PLUGIN_DIR), its configuration directory (HETSCALE_SLURM_CONF_DIR) and
# whether its spank.h has slurm_spank_init_failure_mode (HETSCALE_SPANK_HAS_INIT_FAILURE_MODE).
# The two directories are cache variables: -DHETSCALE_SLURM_PLUGIN_DIR=... overrides what
# is found.
find_path(SLURM_INCLUDE_DIR slurm/spank.h REQUIRED)

file(STRINGS ${SLURM_INCLUDE_DIR}/slurm/slurm_version.h _slurm_version_number
     REGEX "^#define SLURM_VERSION_NUMBER 0x[0-9a-fA-F]+")
if(NOT _slurm_version_number MATCHES "0x([0-9a-fA-F][0-9a-fA-F])([0-9a-fA-F][0-9a-fA-F])")
  message(FATAL_ERROR "no SLURM_VERSION_NUMBER in ${SLURM_INCLUDE_DIR}/slurm/slurm_version.h")
endif()
math(EXPR _slurm_major "0x${CMAKE_MATCH_1}")
math(EXPR _slurm_minor "0x${CMAKE_MATCH_2}")
math(EXPR _slurm_next_minor "${_slurm_minor} + 1")
function(_slurm_release out major minor)
  if(minor LESS 10)
    set(minor "0${minor}")
  endif()
  set(${out} "${major}.${minor}" PARENT_SCOPE)
endfunction()
_slurm_release(_release ${_slurm_major} ${_slurm_minor})
_slurm_release(_next_release ${_slurm_major} ${_slurm_next_minor})
set(HETSCALE_SLURM_RELEASE ${_release} CACHE INTERNAL "Slurm release of the headers")
set(HETSCALE_SLURM_NEXT_RELEASE ${_next_release} CACHE INTERNAL "the release after it")

# Slurm 25.05 and later read a plugin's `slurm_spank_init_failure_mode` (ESPANK_NODE_FAILURE,
# the default, drains the node when slurm_spank_init fails; ESPANK_JOB_FAILURE fails the
# job): taken from the headers, which declare it from 25.05 on (24.11's do not).
file(STRINGS ${SLURM_INCLUDE_DIR}/slurm/spank.h _slurm_failure_mode
     REGEX "^extern int slurm_spank_init_failure_mode;")
if(_slurm_failure_mode)
  set(HETSCALE_SPANK_HAS_INIT_FAILURE_MODE ON CACHE INTERNAL "spank.h declares slurm_spank_init_failure_mode")
else()
  set(HETSCALE_SPANK_HAS_INIT_FAILURE_MODE OFF CACHE INTERNAL "spank.h declares slurm_spank_init_failure_mode")
endif()

# The plugin directory: where the installed Slurm keeps its own plugins. SchedMD's
# packages and `make install` use <libdir>/slurm (slurm.pc gives libdir); Debian uses
# /usr/lib/<multiarch>/slurm-wlm.
if(NOT DEFINED CACHE{HETSCALE_SLURM_PLUGIN_DIR})
  set(_slurm_lib_dirs "")
  find_package(PkgConfig QUIET)
  if(PKG_CONFIG_FOUND)
    pkg_get_variable(_slurm_pc_libdir slurm libdir)
    if(_slurm_pc_libdir)
      list(APPEND _slurm_lib_dirs ${_slurm_pc_libdir})
    endif()
  endif()
  get_filename_component(_slurm_prefix ${SLURM_INCLUDE_DIR} DIRECTORY)
  list(APPEND _slurm_lib_dirs ${_slurm_prefix}/lib/${CMAKE_LIBRARY_ARCHITECTURE}
       ${_slurm_prefix}/lib64 ${_slurm_prefix}/lib)
  set(_candidates "")
  foreach(dir IN LISTS _slurm_lib_dirs)
    list(APPEND _candidates ${dir}/slurm-wlm ${dir}/slurm)
  endforeach()
  # Any of the plugins every Slurm build has marks the directory.
  find_path(_slurm_found_plugin_dir
            NAMES select_cons_tres.so switch_none.so auth_munge.so cred_munge.so
            PATHS ${_candidates} NO_DEFAULT_PATH NO_CACHE)
  if(_slurm_found_plugin_dir)
    set(_plugin_dir ${_slurm_found_plugin_dir})
  else()
    list(GET _candidates 0 _plugin_dir)
    message(WARNING "no Slurm plugins found in ${_candidates}; the SPANK plugin installs into "
                    "${_plugin_dir} (set HETSCALE_SLURM_PLUGIN_DIR to Slurm's PluginDir)")
  endif()
  set(HETSCALE_SLURM_PLUGIN_DIR ${_plugin_dir} CACHE PATH
      "Directory Slurm loads plugins from (slurm.conf PluginDir); found at configure time")
endif()
set(HETSCALE_SLURM_CONF_DIR /etc/slurm CACHE PATH
    "Slurm's configuration directory: the plugstack.conf.d snippet goes to its plugstack.conf.d/")
message(STATUS "hetscale: Slurm ${HETSCALE_SLURM_RELEASE}, plugins in ${HETSCALE_SLURM_PLUGIN_DIR}, "
               "slurm_spank_init_failure_mode: ${HETSCALE_SPANK_HAS_INIT_FAILURE_MODE}")
