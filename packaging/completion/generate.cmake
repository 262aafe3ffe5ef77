# SPDX-License-Identifier: Apache-2.0
# Writes the bash and zsh completions of proctape from the binary's own
# description of its command line (`proctape help --completion-spec`,
# cli/completion_spec.h), so they cannot drift from the commands. Run at
# build time:
#   cmake -DPROCTAPE=bin -DBASH_IN=f -DZSH_IN=f -DBASH_OUT=f -DZSH_OUT=f -P generate.cmake
# The templates hold the completion logic; @PROCTAPE_COMPLETION_DATA@ is
# replaced by three functions (the same text serves bash and zsh):
#   _proctape_commands PATH    REPLY: the subcommands of PATH ('' = top level)
#   _proctape_options PATH     REPLY: PATH's options, NAME=KIND each
#   _proctape_positional PATH  REPLY: the KIND of PATH's positionals, or ''
foreach(var PROCTAPE BASH_IN ZSH_IN BASH_OUT ZSH_OUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "generate.cmake: -D${var}= is required")
  endif()
endforeach()

execute_process(COMMAND ${PROCTAPE} help --completion-spec
                OUTPUT_VARIABLE spec RESULT_VARIABLE status)
if(NOT status EQUAL 0 OR spec STREQUAL "")
  message(FATAL_ERROR "generate.cmake: '${PROCTAPE} help --completion-spec' failed (${status})")
endif()
# Summaries are for the man pages (packaging/man/).
string(REGEX REPLACE "summary\t[^\n]*\n" "" spec "${spec}")
# Everything goes between single quotes in a shell script: refuse any
# character that could end them or mean something to the shell.
if(NOT spec MATCHES "^[A-Za-z0-9\t\n ,.:_-]*$")
  message(FATAL_ERROR "generate.cmake: the completion spec holds a character it cannot quote")
endif()

string(REPLACE "\n" ";" lines "${spec}")
set(paths "")          # every command path, in the spec's order
set(commands_top "")   # the top-level commands
foreach(line IN LISTS lines)
  if(line STREQUAL "")
    continue()
  endif()
  string(REPLACE "\t" ";" fields "${line}")
  list(GET fields 0 what)
  list(GET fields 1 path)
  string(MAKE_C_IDENTIFIER "${path}" id)
  if(what STREQUAL "command")
    list(APPEND paths "${path}")
    set(options_${id} "")
    set(positional_${id} "")
    set(commands_${id} "")
    # Its parent lists it: "corpus add" under "corpus", "show" under ''.
    string(FIND "${path}" " " space REVERSE)
    if(space EQUAL -1)
      string(APPEND commands_top " ${path}")
    else()
      string(SUBSTRING "${path}" 0 ${space} parent)
      math(EXPR name_at "${space} + 1")
      string(SUBSTRING "${path}" ${name_at} -1 name)
      string(MAKE_C_IDENTIFIER "${parent}" parent_id)
      string(APPEND commands_${parent_id} " ${name}")
    endif()
  elseif(what STREQUAL "option")
    list(GET fields 2 name)
    list(GET fields 3 kind)
    string(APPEND options_${id} " ${name}=${kind}")
  elseif(what STREQUAL "positional")
    list(GET fields 2 kind)
    set(positional_${id} "${kind}")
  else()
    message(FATAL_ERROR "generate.cmake: unknown line in the completion spec: ${line}")
  endif()
endforeach()

# One function per table: a case over the command paths.
macro(emit_table function what)
  string(APPEND data "${function}() {\n  case $1 in\n")
  if("${what}" STREQUAL "commands")
    string(STRIP "${commands_top}" value)
    string(APPEND data "    '') REPLY='${value}' ;;\n")
  elseif("${what}" STREQUAL "options")
    string(APPEND data "    '') REPLY='--help=flag -h=flag --version=flag -V=flag' ;;\n")
  endif()
  foreach(path IN LISTS paths)
    string(MAKE_C_IDENTIFIER "${path}" id)
    string(STRIP "${${what}_${id}}" value)
    if(NOT value STREQUAL "")
      string(APPEND data "    '${path}') REPLY='${value}' ;;\n")
    endif()
  endforeach()
  string(APPEND data "    *) REPLY='' ;;\n  esac\n}\n")
endmacro()

set(data "# Generated at build time from `proctape help --completion-spec`.\n")
emit_table(_proctape_commands commands)
emit_table(_proctape_options options)
emit_table(_proctape_positional positional)

foreach(shell BASH ZSH)
  file(READ "${${shell}_IN}" template)
  string(REPLACE "@PROCTAPE_COMPLETION_DATA@" "${data}" text "${template}")
  file(WRITE "${${shell}_OUT}.tmp" "${text}")
  file(RENAME "${${shell}_OUT}.tmp" "${${shell}_OUT}")
endforeach()
