# Desktop integration and the Debian package (cpack -G DEB).
include(GNUInstallDirs)
install(FILES ${PROJECT_SOURCE_DIR}/packaging/spyglass.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
install(FILES ${PROJECT_SOURCE_DIR}/packaging/io.github.spyglass.Spyglass.metainfo.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
install(FILES ${PROJECT_SOURCE_DIR}/resources/icons/spyglass.svg
        DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/resources/examples ${PROJECT_SOURCE_DIR}/resources/targets
                  ${PROJECT_SOURCE_DIR}/resources/schemas
        DESTINATION ${CMAKE_INSTALL_DATADIR}/spyglass)

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
