# Desktop integration and the Debian package (cpack -G DEB).
include(GNUInstallDirs)
install(FILES ${PROJECT_SOURCE_DIR}/packaging/spyglass.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
install(FILES ${PROJECT_SOURCE_DIR}/packaging/io.github.spyglass.Spyglass.metainfo.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
install(FILES ${PROJECT_SOURCE_DIR}/resources/icons/spyglass.svg
        DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/resources/examples ${PROJECT_SOURCE_DIR}/resources/targets
                  ${PROJECT_SOURCE_DIR}/resources/schemas
        DESTINATION ${CMAKE_INSTALL_DATADIR}/spyglass)

# The pass-plugin SDK, beside the programs in the same package: the plugin header, the core headers it includes
# (the IR a pass works on), the generated version header, a pkg-config file, and the two example plugins.
set(SPYGLASS_PLUGIN_HEADERS
    core/common/diagnostics.h core/common/job_control.h core/common/pass_manager.h core/common/pass_record.h core/common/units.h
    core/spyre/pass.h core/spyre/loop_ir.h core/spyre/spyre_target.h
    core/quantum/pass.h core/quantum/circuit.h core/quantum/expr.h)
foreach(h ${SPYGLASS_PLUGIN_HEADERS})
  get_filename_component(_dir ${h} DIRECTORY)
  install(FILES ${PROJECT_SOURCE_DIR}/${h} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/spyglass/${_dir})
endforeach()
install(FILES ${PROJECT_SOURCE_DIR}/include/spyglass/pass_plugin.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/spyglass/spyglass)
install(FILES ${PROJECT_BINARY_DIR}/core/generated/core/common/version.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/spyglass/core/common)
configure_file(${PROJECT_SOURCE_DIR}/packaging/spyglass-plugin.pc.in ${PROJECT_BINARY_DIR}/spyglass-plugin.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/spyglass-plugin.pc DESTINATION ${CMAKE_INSTALL_DATADIR}/pkgconfig)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/plugins DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/spyglass/examples)

set(CPACK_PACKAGE_NAME spyglass)
set(CPACK_PACKAGE_VENDOR "Spyglass developers")
set(CPACK_PACKAGE_CONTACT "Spyglass developers <spyglass@example.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)   # dpkg-shlibdeps derives Depends from the binaries
set(CPACK_STRIP_FILES ON)                # debug info stays in the build tree, not in the package
set(CPACK_GENERATOR DEB)
include(CPack)
