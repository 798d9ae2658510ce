# Wheels carry the third-party shared libraries the components open at run
# time (Debian's XNNPACK, pthreadpool, cpuinfo), renamed the way auditwheel
# does: lib<name>-<first 8 hex of the file's sha256>.so.<N>, soname set to the
# new name, and the copies' DT_NEEDED entries rewritten to each other's new
# names with RUNPATH $ORIGIN. The components are told the names at compile
# time and open them privately (RTLD_LOCAL|RTLD_DEEPBIND), so they can never
# be confused with another copy in the process (torch carries its own).

set(PTERUN_VENDORED_LIBS "")
if(PTERUN_WHEEL AND PTERUN_BUILD_XNNPACK AND PTERUN_DLOPEN_THIRD_PARTY)
  find_program(PTERUN_PATCHELF patchelf REQUIRED)
  # The same minimum as auditwheel's: one patchelf for the whole wheel.
  execute_process(COMMAND "${PTERUN_PATCHELF}" --version OUTPUT_VARIABLE _pe_out ERROR_VARIABLE _pe_out
                  RESULT_VARIABLE _pe_rc)
  string(REGEX MATCH "[0-9]+\\.[0-9]+(\\.[0-9]+)?" _pe_version "${_pe_out}")
  if(NOT _pe_rc EQUAL 0 OR NOT _pe_version OR _pe_version VERSION_LESS 0.14.5)
    message(FATAL_ERROR "pterun: patchelf ${_pe_version} at ${PTERUN_PATCHELF} is too old or broken "
                        "(needs >= 0.14.5, as auditwheel does): run tools/deps.sh and build through make, "
                        "or pass -DPTERUN_PATCHELF=<a newer patchelf>")
  endif()
  foreach(_name XNNPACK pthreadpool cpuinfo)
    find_library(_lib_${_name} NAMES lib${_name}.so.0 ${_name} REQUIRED)
    get_filename_component(_real ${_lib_${_name}} REALPATH)
    file(SHA256 ${_real} _hash)
    string(SUBSTRING ${_hash} 0 8 _short)
    set(PTERUN_VENDORED_${_name}_SOURCE ${_real})
    set(PTERUN_VENDORED_${_name} "lib${_name}-${_short}.so.0")
    list(APPEND PTERUN_VENDORED_LIBS ${_name})
  endforeach()
  message(STATUS "pterun: vendoring ${PTERUN_VENDORED_XNNPACK}, ${PTERUN_VENDORED_pthreadpool}, ${PTERUN_VENDORED_cpuinfo}")
  target_compile_definitions(pterun_threadpool PRIVATE PTERUN_VENDORED_PTHREADPOOL="${PTERUN_VENDORED_pthreadpool}")
  target_compile_definitions(pterun_backend_xnnpack PRIVATE PTERUN_VENDORED_XNNPACK="${PTERUN_VENDORED_XNNPACK}")
  set(_dst "\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}")
  foreach(_name ${PTERUN_VENDORED_LIBS})
    set(_new ${PTERUN_VENDORED_${_name}})
    set(_args --set-soname ${_new} --set-rpath "\$ORIGIN")
    if(_name STREQUAL "XNNPACK")
      list(APPEND _args --replace-needed libpthreadpool.so.0 ${PTERUN_VENDORED_pthreadpool}
                        --replace-needed libcpuinfo.so.0 ${PTERUN_VENDORED_cpuinfo})
    endif()
    install(CODE "
      file(MAKE_DIRECTORY \"${_dst}\")
      configure_file(\"${PTERUN_VENDORED_${_name}_SOURCE}\" \"${_dst}/${_new}\" COPYONLY)
      execute_process(COMMAND \"${PTERUN_PATCHELF}\" ${_args} \"${_dst}/${_new}\" RESULT_VARIABLE _rc)
      if(NOT _rc EQUAL 0)
        message(FATAL_ERROR \"patchelf failed on ${_new}\")
      endif()
      file(CHMOD \"${_dst}/${_new}\" PERMISSIONS ${PTERUN_EXEC_PERMISSIONS})
      message(STATUS \"Vendored: ${_dst}/${_new}\")")
  endforeach()
endif()
