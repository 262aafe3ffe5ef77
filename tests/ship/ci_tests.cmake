# SPDX-License-Identifier: Apache-2.0
# contrib/ci/proctape-ci.sh (README "Capturing on CI"), run as a CI job would
# (tests/ship/ci_script_test.sh): one ctest test per case, label ship.
# Included from tests/CMakeLists.txt.
set(PROCTAPE_CI_CASES
    install_portable_binary_from_a_file_onto_path
    install_refuses_another_checksum_and_installs_nothing
    install_refuses_what_is_not_an_artifact
    install_deb_through_apt_get_with_its_dependencies
    install_deb_with_dir_also_puts_proctape_in_dir
    capture_says_loudly_when_it_cannot_capture
    capture_cut_by_a_bound_is_a_problem
    capture_job_tree_beneath_the_runner_with_its_recordings
    capture_of_a_root_given_and_the_whole_host_without_a_runner
    capture_never_fails_the_job_unless_strict
    yaml_files_parse_and_call_the_script_by_its_path
    help_lists_every_exit_status)
foreach(case IN LISTS PROCTAPE_CI_CASES)
  add_test(NAME ship/ci/${case}
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/ci_script_test.sh ${case}
                   $<TARGET_FILE:proctape> ${PROJECT_SOURCE_DIR})
  set_tests_properties(ship/ci/${case} PROPERTIES LABELS ship TIMEOUT 120)
endforeach()
# install's choice of this machine's binary (tests/ship/ci_arch_test.sh).
add_test(NAME ship/ci/install_takes_the_binary_of_this_machine
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/ci_arch_test.sh $<TARGET_FILE:proctape> ${PROJECT_SOURCE_DIR})
set_tests_properties(ship/ci/install_takes_the_binary_of_this_machine PROPERTIES LABELS ship TIMEOUT 120)
# The recipes end to end (tests/ship/ci_recipes_test.sh): README's and
# contrib/ci's, run by a stub GitHub or GitLab runner with the .deb and the
# portable binary; skipped (77) until scripts/ship_check.sh has made them.
foreach(recipe readme_github readme_gitlab github_steps github_action gitlab_ci)
  foreach(artifact deb portable)
    add_test(NAME ship/ci/recipe/${recipe}-${artifact}
             COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/ci_recipes_test.sh ${recipe}-${artifact}
                     $<TARGET_FILE:proctape> ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
    set_tests_properties(ship/ci/recipe/${recipe}-${artifact} PROPERTIES
                         LABELS ship TIMEOUT 300 SKIP_RETURN_CODE 77)
  endforeach()
endforeach()
# The corpus in shards over a CI matrix (tests/ship/ci_shards_test.sh):
# contrib/ci's corpus-shards-github.yml and corpus-shards-gitlab.yml parsed,
# and each pipeline run whole by the stub runner with the built proctape.
foreach(case yaml_shapes github_shards_merge_to_the_unsharded_report
             github_a_drift_fails_its_shard_and_the_merge github_a_lost_shard_is_named_by_the_merge
             gitlab_shards_merge_to_the_unsharded_report gitlab_a_lost_shard_is_named_by_the_merge)
  add_test(NAME ship/ci/shards/${case}
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/ci_shards_test.sh ${case}
                   $<TARGET_FILE:proctape> ${PROJECT_SOURCE_DIR})
  set_tests_properties(ship/ci/shards/${case} PROPERTIES LABELS ship TIMEOUT 300 SKIP_RETURN_CODE 77)
endforeach()
