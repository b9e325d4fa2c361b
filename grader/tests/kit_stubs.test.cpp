// Every graded test on an untouched stub fails, with a message that says the lab is not
// implemented yet, never a crash, a hang or a pass.
#include <fstream>

#include "checks/book_models.hpp"
#include "base/catalog.hpp"
#include "kit.hpp"

using namespace reduce_lab::grader;

TEST_CASE("kit stubs") {
  int checked = 0;
  for (int lab = 1; lab <= lab_count(); ++lab) {
    if (!load_lab(lab, Flavor::plain, Origin::stub)) continue;  // not written yet
    INFO(lab_title(lab));
    CorrectnessPlan plan = power_of_two_plan();
    plan.origin = Origin::stub;
    const Verdict correctness = check_correctness(lab, plan);
    INFO(correctness.message);
    CHECK(correctness.status == Status::fail);
    CHECK(correctness.summary == "not implemented yet");
    if (lab_info(lab).kind == reduce_lab::LabKind::multipass) {
      const Verdict requests = check_book_requests(lab, {256, 2048}, Origin::stub);
      INFO(requests.message);
      CHECK(requests.status == Status::fail);
      CHECK(requests.summary == "not implemented yet");
    }
    ++checked;
  }
  CHECK(checked >= 3);
}
