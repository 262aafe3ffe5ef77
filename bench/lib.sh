# Pieces the bench scripts share; sourced, never run.
#   median          the median of the numbers on standard input ("nan" for none)
#   build_timeit D  compiles bench/timeit.c (wall time and peak RSS of a
#                   command) into D/timeit
median() { sort -g | awk '{v[NR] = $1} END {if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
build_timeit() { cc -O2 -Wall -Wextra -o "$1/timeit" "$(dirname -- "${BASH_SOURCE[0]}")/timeit.c"; }
