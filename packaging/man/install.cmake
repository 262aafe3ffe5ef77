# SPDX-License-Identifier: Apache-2.0
# Installs the man pages generate.cmake made, run by `cmake --install` (and
# by cpack) once the prefix is known. A page is proctape's --help, which
# cites documents by their place in the source tree (docs/resolver.md,
# proto/views.proto); installed, each names the file the install holds
# (/usr/share/doc/proctape/docs/resolver.md under the prefix /usr), and the
# page's SEE ALSO says where the documentation is. Set before it runs (an
# install(CODE) of packaging/CMakeLists.txt):
#   PROCTAPE_MAN_BUILD_DIR  the pages generate.cmake wrote
#   PROCTAPE_MANDIR         CMAKE_INSTALL_MANDIR (relative to the prefix, or absolute)
#   PROCTAPE_DOCDIR         CMAKE_INSTALL_DOCDIR (relative to the prefix, or absolute)
foreach(var PROCTAPE_MAN_BUILD_DIR PROCTAPE_MANDIR PROCTAPE_DOCDIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "man/install.cmake: ${var} is not set")
  endif()
endforeach()

# dir_under_prefix(DIR VAR): DIR as the install puts it (the prefix of this
# install, not of the configure: cpack installs under /usr).
function(dir_under_prefix dir var)
  if(IS_ABSOLUTE "${dir}")
    set(${var} "${dir}" PARENT_SCOPE)
  else()
    set(${var} "${CMAKE_INSTALL_PREFIX}/${dir}" PARENT_SCOPE)
  endif()
endfunction()
dir_under_prefix("${PROCTAPE_MANDIR}" mandir)
dir_under_prefix("${PROCTAPE_DOCDIR}" docdir)

# DOCDIR as roff text ('/' a place a line may break: \:), and as the
# replacement of a regex (its backslashes doubled).
string(REPLACE "/" "/\\:" docdir_roff "${docdir}")
string(REPLACE "/" "/\\\\:" docdir_in_regex "${docdir}")

file(GLOB pages "${PROCTAPE_MAN_BUILD_DIR}/*.1")
if(NOT pages)
  message(FATAL_ERROR "man/install.cmake: no page in ${PROCTAPE_MAN_BUILD_DIR}")
endif()
set(staged_dir "${PROCTAPE_MAN_BUILD_DIR}/installed")
file(REMOVE_RECURSE "${staged_dir}")
file(MAKE_DIRECTORY "${staged_dir}")
set(staged "")
foreach(page IN LISTS pages)
  file(READ "${page}" text)
  # A cited docs/NAME or proto/NAME (not already a longer path: no '/' or
  # word character before it) becomes DOCDIR/docs/NAME, which a line may
  # break after a '/' of DOCDIR (roff's \:), never with a hyphen.
  string(REGEX REPLACE "(^|[^A-Za-z0-9_./-])((docs|proto)/[A-Za-z0-9_./-]*[A-Za-z0-9_])"
         "\\1${docdir_in_regex}/\\\\:\\2" text "${text}")
  # Left-adjusted: a long path leaves a line short rather than one
  # stretched (which groff warns it cannot adjust).
  string(REGEX REPLACE "(\n\\.TH [^\n]*\n)" "\\1.ad l\n" text "${text}")
  string(APPEND text ".PP\nREADME.md, docs/ (each document cited above) and the schemas of "
         "proto/ are in\n.IR ${docdir_roff} .\n")
  get_filename_component(name "${page}" NAME)
  file(WRITE "${staged_dir}/${name}" "${text}")
  list(APPEND staged "${staged_dir}/${name}")
endforeach()
file(INSTALL DESTINATION "${mandir}/man1" TYPE FILE FILES ${staged})
