# SPDX-License-Identifier: Apache-2.0
# Writes proctape's man pages from its own help, so they cannot drift from
# it: proctape.1 from `proctape --help`, and proctape-CMD.1 from
# `proctape CMD --help` for every command the binary lists
# (`proctape help --completion-spec`, cli/completion_spec.h), a command's
# subcommands included ("corpus add" -> proctape-corpus-add.1). Run at build
# time by Debian's help2man:
#   cmake -DPROCTAPE=bin -DHELP2MAN=help2man -DVERSION=0.1.0 -DOUT_DIR=dir -P generate.cmake
# help2man's page is then made right where it guesses wrong about proctape's
# help: the page's name, an example's lines kept as written (not filled),
# an exit-status sentence that goes on under a hanging indent kept one
# paragraph, and a SEE ALSO naming the other pages.
foreach(var PROCTAPE HELP2MAN VERSION OUT_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "man/generate.cmake: -D${var}= is required")
  endif()
endforeach()

execute_process(COMMAND ${PROCTAPE} help --completion-spec
                OUTPUT_VARIABLE spec RESULT_VARIABLE status)
if(NOT status EQUAL 0 OR spec STREQUAL "")
  message(FATAL_ERROR "man/generate.cmake: '${PROCTAPE} help --completion-spec' failed (${status})")
endif()
string(REGEX MATCHALL "(^|\n)command\t[a-z -]+" command_lines "${spec}")
set(commands "")
foreach(line IN LISTS command_lines)
  string(REGEX REPLACE "^\n?command\t" "" path "${line}")
  list(APPEND commands "${path}")
endforeach()

# page_of(PATH VAR): "corpus add" -> "proctape-corpus-add"; "" -> "proctape".
function(page_of path var)
  string(REPLACE " " "-" name "proctape ${path}")
  string(STRIP "${name}" name)
  string(REGEX REPLACE "-$" "" name "${name}")
  set(${var} "${name}" PARENT_SCOPE)
endfunction()

# roff_name(NAME VAR): a page's name as roff writes it, each '-' as "\-".
function(roff_name name var)
  string(REPLACE "-" "\\-" out "${name}")
  set(${var} "${out}" PARENT_SCOPE)
endfunction()

file(MAKE_DIRECTORY "${OUT_DIR}")
file(GLOB stale "${OUT_DIR}/*.1")
if(stale)
  file(REMOVE ${stale})  # a command that is gone leaves no page behind
endif()

set(see_also_all "")
foreach(path IN LISTS commands)
  page_of("${path}" page)
  roff_name("${page}" roff)
  string(APPEND see_also_all ",\n.BR ${roff} (1)")
endforeach()
string(REGEX REPLACE "^,\n" "" see_also_all "${see_also_all}")

foreach(path IN LISTS ITEMS "" ${commands})
  page_of("${path}" page)
  roff_name("${page}" roff)
  if(path STREQUAL "")
    set(summary "find, record and replay the identity of Linux processes")
    set(help_option "--help")
    set(see_also "${see_also_all}")
  else()
    string(REGEX MATCH "\nsummary\t${path}\t([^\n]*)" found "${spec}")
    set(summary "${CMAKE_MATCH_1}")
    set(help_option "${path} --help")
    set(see_also ".BR proctape (1)")
  endif()
  set(out "${OUT_DIR}/${page}.1")
  execute_process(
    COMMAND ${HELP2MAN} --no-info "--version-string=proctape ${VERSION}"
            "--help-option=${help_option}" "--name=${summary}" --section=1
            --output=${out}.tmp ${PROCTAPE}
    RESULT_VARIABLE status ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "man/generate.cmake: help2man for '${page}' failed: ${err}")
  endif()
  file(READ "${out}.tmp" roff_text)
  file(REMOVE "${out}.tmp")
  # The page's own name: help2man names every page after the binary.
  string(REGEX REPLACE "\n\\.TH PROCTAPE " "\n.TH ${page} " roff_text "${roff_text}")
  string(TOUPPER "${page}" upper)
  string(REPLACE "\n.TH ${page} " "\n.TH ${upper} " roff_text "${roff_text}")
  string(REPLACE "\n.SH NAME\nproctape \\- " "\n.SH NAME\n${roff} \\- " roff_text "${roff_text}")
  # An example's lines are commands, one a line, as the help has them:
  # help2man's guesses (a filled paragraph, a "# comment" taken for a
  # definition) are replaced by the help's own lines, not filled.
  # (help2man makes "Examples:" a section, "Example...:" a subsection.)
  separate_arguments(help_args UNIX_COMMAND "${help_option}")
  execute_process(COMMAND ${PROCTAPE} ${help_args} OUTPUT_VARIABLE help)
  if(help MATCHES "\nExamples?[^\n]*:\n((  [^\n]*\n)+)")
    # (Literal replaces after a newline: CMake's regex '^' matches again
    # wherever a match ended.)
    set(block "\n${CMAKE_MATCH_1}")
    string(REPLACE "\n  " "\n" block "${block}")  # the help's indent
    string(REPLACE "\\" "\\e" block "${block}")
    string(REPLACE "-" "\\-" block "${block}")
    string(REPLACE "\n." "\n\\&." block "${block}")
    string(REPLACE "\n'" "\n\\&'" block "${block}")
    string(SUBSTRING "${block}" 1 -1 block)
    string(REGEX MATCH "\n\\.(SH EXAMPLES|SS \"Examples?[^\"\n]*\")\n" header "${roff_text}")
    string(FIND "${roff_text}" "${header}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "man/generate.cmake: '${page}': help2man's page has no examples heading")
    endif()
    string(LENGTH "${header}" header_length)
    math(EXPR body_at "${at} + ${header_length}")
    string(SUBSTRING "${roff_text}" ${body_at} -1 rest)
    set(end -1)
    foreach(next "\n.PP\n" "\n.SH " "\n.SS ")
      string(FIND "${rest}" "${next}" found)
      if(NOT found EQUAL -1 AND (end EQUAL -1 OR found LESS end))
        set(end ${found})
      endif()
    endforeach()
    if(end EQUAL -1)
      string(LENGTH "${rest}" end)
    endif()
    string(SUBSTRING "${roff_text}" 0 ${body_at} before)
    string(SUBSTRING "${rest}" ${end} -1 after)
    set(roff_text "${before}.RS 4\n.nf\n${block}.fi\n.RE${after}")
  endif()
  # "Exit status: ..." that goes on under a hanging indent is one paragraph
  # (and not a subsection's title when its first line ends in ':').
  string(REGEX REPLACE "\n\\.SS \"(Exit status:[^\"\n]*)\"\n\\.IP\n" "\n.PP\n\\1\n"
         roff_text "${roff_text}")
  string(REGEX REPLACE "(\nExit status:[^\n]*)\n\\.IP\n" "\\1\n" roff_text "${roff_text}")
  string(APPEND roff_text ".SH \"SEE ALSO\"\n${see_also}\n")
  file(WRITE "${out}" "${roff_text}")
endforeach()
