# Install layout, CMake package and pkg-config files, all generated from the
# component table for the components this build produced.
#
#   include/pterun/*.h, lib/ (libraries), lib/cmake/pterun/, lib/pkgconfig/, bin/pterun
#
# PTERUN_WHEEL: the wheel layout: each library ships once under its soname
# (a wheel cannot hold symlinks), and RUNPATHs are $ORIGIN-relative only.

include(CMakePackageConfigHelpers)
include(${PROJECT_SOURCE_DIR}/cmake/vendor.cmake)
# Shipped programs and libraries use PTERUN_EXEC_PERMISSIONS (0755, set in
# the top-level CMakeLists) whatever the umask or the build output's own mode.
get_property(_built GLOBAL PROPERTY PTERUN_BUILT_COMPONENTS)

set(PTERUN_CONFIG_TABLE "set(_pterun_all_components ${PTERUN_COMPONENTS})\n")
foreach(_c ${PTERUN_COMPONENTS})
  set(_sover ${PROJECT_VERSION_MAJOR})
  string(APPEND PTERUN_CONFIG_TABLE
    "set(_pterun_${_c}_file \"lib${PTERUN_${_c}_library}.so.${_sover}\")\n"
    "set(_pterun_${_c}_archive \"lib${PTERUN_${_c}_library}.a\")\n"
    "set(_pterun_${_c}_depends \"${PTERUN_${_c}_depends}\")\n"
    "set(_pterun_${_c}_self_registering ${PTERUN_${_c}_self_registering})\n"
    "set(_pterun_${_c}_optional ${PTERUN_${_c}_optional})\n")
endforeach()

set(_cmakedir ${CMAKE_INSTALL_LIBDIR}/cmake/pterun)
configure_file(${PROJECT_SOURCE_DIR}/cmake/pterunConfig.cmake.in
               ${PROJECT_BINARY_DIR}/pterunConfig.cmake @ONLY)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/pterunConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/pterunConfig.cmake ${PROJECT_BINARY_DIR}/pterunConfigVersion.cmake
        DESTINATION ${_cmakedir})
install(FILES ${PROJECT_SOURCE_DIR}/components.json DESTINATION ${_cmakedir})

foreach(_c ${_built})
  set(_tgt pterun_${_c})
  if(PTERUN_BUILD_SHARED)
    if(PTERUN_WHEEL)
      install(TARGETS ${_tgt} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} NAMELINK_SKIP PERMISSIONS ${PTERUN_EXEC_PERMISSIONS})
    else()
      install(TARGETS ${_tgt} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} PERMISSIONS ${PTERUN_EXEC_PERMISSIONS})
    endif()
  else()
    install(TARGETS ${_tgt} ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  endif()
  install(FILES ${PROJECT_SOURCE_DIR}/include/${PTERUN_${_c}_header} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/pterun)
  if(_c STREQUAL "runtime")
    install(FILES ${PROJECT_BINARY_DIR}/include/pterun/version.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/pterun)
  endif()

  # pkg-config
  set(PC_NAME ${PTERUN_${_c}_pkgconfig})
  set(PC_COMPONENT ${_c})
  set(PC_DESCRIPTION "${PTERUN_${_c}_description}")
  set(PC_REQUIRES "")
  foreach(_d ${PTERUN_${_c}_depends})
    string(APPEND PC_REQUIRES "${PTERUN_${_d}_pkgconfig} ")
  endforeach()
  if(PTERUN_BUILD_SHARED)
    set(_lib "-l:lib${PTERUN_${_c}_library}.so.${PROJECT_VERSION_MAJOR}")
    if(PTERUN_${_c}_self_registering)
      # One fragment per library: pkg-config de-duplicates identical flags.
      set(PC_LIBS "-Wl,--push-state,--no-as-needed,${_lib},--pop-state")
    elseif(_c STREQUAL "runtime")
      set(PC_LIBS "-Wl,--enable-new-dtags -Wl,-rpath,\${libdir} ${_lib}")
    else()
      set(PC_LIBS "${_lib}")
    endif()
  else()
    set(PC_LIBS "-l${PTERUN_${_c}_library}")
    if(_c STREQUAL "runtime")
      string(APPEND PC_LIBS " -lpthread -ldl -lm")
    endif()
  endif()
  configure_file(${PROJECT_SOURCE_DIR}/cmake/pterun.pc.in ${PROJECT_BINARY_DIR}/pkgconfig/${PC_NAME}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/${PC_NAME}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
