#include "checks/check_messages.hpp"

#include <cstdio>

#include "base/catalog.hpp"
#include "checks/hints.hpp"

namespace reduce_lab::grader {

std::string doc_line(int lab, const std::string& hint) {
  return "Revisit: " + (hint.empty() ? std::string(idea_to_revisit(lab)) : hint) + "\nRead: " + lab_info(lab).doc;
}
std::string doc_line(int lab) { return doc_line(lab, ""); }

std::string picture_line(int lab, unsigned variant) {
  char svg[32];
  std::snprintf(svg, sizeof svg, "lab%02d.svg", lab);  // as ./lab show names it, after the lab's modules
  const std::string command = "./lab show " + std::to_string(lab) +
                              (variant_value(variant) != 0 ? " --variant " + std::to_string(variant_value(variant)) : "");
  return "\nSee it: " + command + " draws what your kernel did, step by step, beside the reference's\n"
         "(and writes build/grade-emu/show/" + svg + ").";
}

Verdict not_loadable(int, const LoadedLab& loaded) {
  return fail(loaded.summary.empty() ? "not built" : loaded.summary, loaded.problem);
}

Verdict not_implemented(int lab, Origin origin) {
  const std::string file = origin == Origin::stub ? "labs/" + std::string(lab_info(lab).stem) + ".cu" : lab_source(lab);
  return fail("not implemented yet",
              lab_title(lab) + " is not implemented yet: its kernel still runs REDUCE_LAB_TODO().\n"
              "Write the exercise region (between // BEGIN EXERCISE and // END EXERCISE) in " + file +
              " and delete the REDUCE_LAB_TODO() line.\nRead: " + lab_info(lab).doc);
}

}  // namespace reduce_lab::grader
