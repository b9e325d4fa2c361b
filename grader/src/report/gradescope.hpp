// Gradescope's results.json, from one grade's report.json (report.hpp): one Gradescope test per
// check that could run here, scored as the report scores it.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace reduce_lab::grader {

// Gradescope's results.json for `report`: one test per check that could run here, its score
// and maximum the report's; checks that cannot run on this backend are left out of the
// maximum, and the output says so. `notes` (may be empty) comes first in the output.
nlohmann::json gradescope_results(const nlohmann::json& report, const std::string& table, double execution_seconds,
                                  const std::string& notes);

}  // namespace reduce_lab::grader
