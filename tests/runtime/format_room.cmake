# The file format is read in one room: outside runtime/format/ (and the
# generic flatbuffer reader in core/flatbuffer.c) no runtime source reads a
# flatbuffer field or knows the schema's slots; they ask for views.
file(GLOB_RECURSE _files ${SOURCE_DIR}/runtime/*.c ${SOURCE_DIR}/runtime/*.h)
set(_bad "")
foreach(_f ${_files})
  if(_f MATCHES "/runtime/format/" OR _f MATCHES "/runtime/core/flatbuffer\\.c$")
    continue()
  endif()
  file(READ ${_f} _text)
  if(_text MATCHES "pte_fb_[a-z0-9_]+\\(" OR _text MATCHES "#include \"[^\"]*schema\\.h\"")
    list(APPEND _bad ${_f})
  endif()
endforeach()
if(_bad)
  message(FATAL_ERROR "flatbuffer fields read outside runtime/format/: ${_bad}")
endif()
