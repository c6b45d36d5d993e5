# Three packages, Debian (.deb) and RPM (.rpm), one per install component:
#   hetscale-spank       (component spank)       the SPANK plugin alone, its plugstack.conf.d
#                                                snippet, its cache directory, hetscale-spank(8);
#                                                needs Slurm and libc only (compute nodes)
#   hetscale             (component hetscale)    the CLI (with the collector), the kernels, the
#                                                run-record helpers (C, C++, Fortran, Python,
#                                                libhetscale_record), db/add_login.sql, man
#                                                pages, bash completion
#   hetscale-dashboards  (component dashboards)  the Grafana dashboards and example specs
#   cd build/default && cpack -G DEB    (or -G RPM; rpmbuild comes with Debian's `rpm`)
# Include it at the end of the top-level CMakeLists.txt, after every install() rule.
if(NOT TARGET hetscale_spank OR NOT TARGET hetscale)
  return()  # a partial build (HETSCALE_FUZZ) has nothing to package
endif()

set(CPACK_GENERATOR DEB RPM)
set(CPACK_PACKAGE_NAME hetscale)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_CONTACT "hetscale maintainers <hetscale@localhost>")
set(CPACK_PACKAGE_VENDOR "hetscale")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)

set(CPACK_COMPONENTS_ALL spank hetscale dashboards)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_RPM_COMPONENT_INSTALL ON)
set(CPACK_COMPONENT_SPANK_DESCRIPTION
    "Slurm SPANK plugin of hetscale, built for Slurm ${HETSCALE_SLURM_RELEASE}: per-rank speed weights (HETSCALE_WEIGHT) for job steps that ask")
set(CPACK_COMPONENT_HETSCALE_DESCRIPTION
    "hetscale command line tool, collector and MPI kernels: isospeed-e scalability of heterogeneous Slurm clusters")
set(CPACK_COMPONENT_DASHBOARDS_DESCRIPTION
    "Grafana dashboards and example experiment specifications of hetscale")

# --- Debian ------------------------------------------------------------------------------
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
# Library dependencies (libc6, libpq5, libopenmpi3...) come from dpkg-shlibdeps.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_SPANK_PACKAGE_NAME hetscale-spank)
set(CPACK_DEBIAN_HETSCALE_PACKAGE_NAME hetscale)
set(CPACK_DEBIAN_DASHBOARDS_PACKAGE_NAME hetscale-dashboards)
# The plugin is built against one Slurm release's spank.h and loads only into that release
# (cmake/Slurm.cmake): srun (slurm-client) and slurmstepd (slurmd) load it, and both depend
# on slurm-wlm-basic-plugins of their own version, so the package needs one of the two and
# that release of all three.
set(CPACK_DEBIAN_SPANK_PACKAGE_DEPENDS
    "slurm-wlm-basic-plugins (>= ${HETSCALE_SLURM_RELEASE}), slurm-wlm-basic-plugins (<< ${HETSCALE_SLURM_NEXT_RELEASE}), slurmd | slurm-client")
set(CPACK_DEBIAN_SPANK_PACKAGE_BREAKS
    "slurmd (<< ${HETSCALE_SLURM_RELEASE}), slurmd (>= ${HETSCALE_SLURM_NEXT_RELEASE}), slurm-client (<< ${HETSCALE_SLURM_RELEASE}), slurm-client (>= ${HETSCALE_SLURM_NEXT_RELEASE})")
set(_spank_conffile ${HETSCALE_SLURM_CONF_DIR}/plugstack.conf.d/hetscale.conf)
# Where removal (without purge) keeps the snippet: outside plugstack.conf.d, so that no
# include glob reads a line naming the removed plugin; a reinstall puts it back.
set(_spank_removed ${HETSCALE_SLURM_CONF_DIR}/hetscale-spank.removed)
set(_spank_control ${PROJECT_BINARY_DIR}/packaging/deb-spank)
file(CONFIGURE OUTPUT ${_spank_control}/conffiles CONTENT "${_spank_conffile}\n")
foreach(script preinst postrm)
  configure_file(${CMAKE_CURRENT_LIST_DIR}/packaging/spank-${script}.in ${_spank_control}/${script} @ONLY
                 FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                                  WORLD_READ WORLD_EXECUTE)
endforeach()
set(CPACK_DEBIAN_SPANK_PACKAGE_CONTROL_EXTRA
    ${_spank_control}/conffiles ${_spank_control}/preinst ${_spank_control}/postrm)
# libhetscale_record (package hetscale, the Fortran and Python record helpers' library): its
# shlibs file, and the ldconfig trigger that refreshes the loader's cache.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
file(CONFIGURE OUTPUT ${PROJECT_BINARY_DIR}/packaging/deb-hetscale/triggers CONTENT "activate-noawait ldconfig\n")
set(CPACK_DEBIAN_HETSCALE_PACKAGE_CONTROL_EXTRA ${PROJECT_BINARY_DIR}/packaging/deb-hetscale/triggers)
# Maintainer scripts keep their modes (0755).
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# `hetscale jobgen` asks scontrol about partitions; the kernels run under srun.
set(CPACK_DEBIAN_HETSCALE_PACKAGE_RECOMMENDS "slurm-client")
set(CPACK_DEBIAN_DASHBOARDS_PACKAGE_ARCHITECTURE all)
set(CPACK_DEBIAN_DASHBOARDS_PACKAGE_SUGGESTS "hetscale, grafana")

# --- RPM (SchedMD's slurm packages) --------------------------------------------------------
set(CPACK_RPM_FILE_NAME RPM-DEFAULT)
set(CPACK_RPM_PACKAGE_GROUP "Applications/System")
# No /usr/lib/.build-id links: they would clash between packages built from one tree.
set(CPACK_RPM_SPEC_MORE_DEFINE "%define _build_id_links none")
# Library dependencies (libc.so.6, libpq.so.5...) come from rpmbuild's automatic requires.
set(CPACK_RPM_SPANK_PACKAGE_NAME hetscale-spank)
set(CPACK_RPM_HETSCALE_PACKAGE_NAME hetscale)
set(CPACK_RPM_DASHBOARDS_PACKAGE_NAME hetscale-dashboards)
set(CPACK_RPM_SPANK_PACKAGE_SUMMARY "Slurm SPANK plugin of hetscale for Slurm ${HETSCALE_SLURM_RELEASE} (per-rank speed weights)")
set(CPACK_RPM_HETSCALE_PACKAGE_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_RPM_DASHBOARDS_PACKAGE_SUMMARY "Grafana dashboards and example specs of hetscale")
set(CPACK_RPM_SPANK_PACKAGE_REQUIRES
    "slurm >= ${HETSCALE_SLURM_RELEASE}, slurm < ${HETSCALE_SLURM_NEXT_RELEASE}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/packaging/spank-rpm-postun.in
               ${PROJECT_BINARY_DIR}/packaging/rpm-spank/postun @ONLY)
set(CPACK_RPM_SPANK_POST_UNINSTALL_SCRIPT_FILE ${PROJECT_BINARY_DIR}/packaging/rpm-spank/postun)
set(CPACK_RPM_SPANK_USER_FILELIST "%config(noreplace) ${_spank_conffile}")
set(CPACK_RPM_DASHBOARDS_PACKAGE_ARCHITECTURE noarch)
# Directories the packages put files in but do not own (Slurm's, the system's).
set(CPACK_RPM_EXCLUDE_FROM_AUTO_FILELIST_ADDITION
    ${HETSCALE_SLURM_CONF_DIR} ${HETSCALE_SLURM_PLUGIN_DIR} /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}
    /usr/lib/python3 /usr/${HETSCALE_INSTALL_PYTHONDIR}
    /var /var/cache /usr/share/man /usr/share/man/man1 /usr/share/man/man8
    /usr/share/bash-completion /usr/share/bash-completion/completions)

include(CPack)
